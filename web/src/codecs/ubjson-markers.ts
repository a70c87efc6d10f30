// UBJSON Draft 12 markers and the decoder's nesting limit, shared by ubjson-write.ts and ubjson-read.ts.

/** Containers nested deeper than this are refused (Rust's decoder has the same limit). */
export const MAX_DEPTH = 128;

// Markers (Draft 12).
export const Null = 0x5a; // Z
export const NoOp = 0x4e; // N
export const True = 0x54; // T
export const False = 0x46; // F
export const Int8 = 0x69; // i
export const Uint8 = 0x55; // U
export const Int16 = 0x49; // I
export const Int32 = 0x6c; // l
export const Int64 = 0x4c; // L
export const Float32 = 0x64; // d
export const Float64 = 0x44; // D
export const HighPrecision = 0x48; // H
export const Char = 0x43; // C
export const Str = 0x53; // S
export const ArrayStart = 0x5b; // [
export const ArrayEnd = 0x5d; // ]
export const ObjectStart = 0x7b; // {
export const ObjectEnd = 0x7d; // }
export const TypeMarker = 0x24; // $
export const CountMarker = 0x23; // #
