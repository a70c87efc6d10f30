// Types of user-datasets.mjs for the TypeScript tests that import it.
import type { Page } from "puppeteer-core";
import type { UserDatasetSource } from "../src/datasets/user-dataset";

export declare class ManifestError extends Error {}
export declare function readUserDataset(path: string): UserDatasetSource;
export declare function readUserDatasets(paths: string[]): UserDatasetSource[];
export declare function injectUserDatasets(page: Page, sources: UserDatasetSource[]): Promise<void>;
export declare function userDatasetsVerdict(page: Page, timeoutMs?: number): Promise<string | null>;
