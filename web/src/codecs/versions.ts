// The installed version of a codec library, as vite.config.ts read it from node_modules.
export function libraryVersion(name: string): string {
  const version = __LIBRARY_VERSIONS__[name];
  if (version === undefined) throw new Error(`vite.config.ts does not read the version of ${name}: add it to its library list`);
  return version;
}
