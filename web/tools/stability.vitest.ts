import { defineConfig } from "vitest/config";
import base from "../vite.config";

// `npx vitest run --config tools/stability.vitest.ts`: the trial-stability experiment only (not
// part of `npm test`: it takes minutes and prints figures rather than asserting them).
export default defineConfig({ ...base, test: { ...base.test, include: ["tools/stability.test.ts"], testTimeout: 1_800_000, reporters: ["default"] } });
