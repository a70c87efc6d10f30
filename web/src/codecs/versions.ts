// The installed version of a library a codec uses beside its own (a codec's own library and version
// are its catalogue entry: catalogue.ts), as vite.config.ts read it from node_modules.
export function libraryVersion(name: string): string {
  const version = __LIBRARY_VERSIONS__[name];
  if (version === undefined) throw new Error(`vite.config.ts does not read the version of ${name}: add it to its library list`);
  return version;
}
