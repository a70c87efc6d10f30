// The ES build of @shelacek/ubjson, imported by path so that the page, the tests and the vector
// generator all run the same file (ubjson.ts patches two of its methods by their built names).
declare module "@shelacek/ubjson/dist/ubjson.es.js" {
  export * from "@shelacek/ubjson";
}
