// The xml codec's text rules (src/codecs/xml.ts): a strict entity decoder for the parser, the
// characters XML 1.0 forbids, and the escaping of element text for the builder.

export const show = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);

// ---- entities ---------------------------------------------------------------------------------

// Written by hand (the library's hook for it is the entityDecoder option): its default decoder
// (@nodable/entities) leaves character references such as &#13; undecoded unless htmlEntities is
// on, which also admits HTML's named entities (&nbsp;), keeps undefined entities as literal text
// and drops references to forbidden characters silently. XML 1.0 has exactly the five predefined
// entities and references to legal characters; anything else is a well-formedness error. A
// DOCTYPE's entity declarations arrive here too and are refused: no DTD is processed, so no
// entity ever expands to more than one character.
const PREDEFINED = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["apos", "'"],
  ["quot", '"'],
]);

const legalChar = (cp: number) => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);

function characterReference(name: string): string {
  const hex = name.charCodeAt(1) === 0x78; // &#x...;
  const digits = name.slice(hex ? 2 : 1);
  const code = (hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digits) ? parseInt(digits, hex ? 16 : 10) : -1;
  if (!legalChar(code)) throw new Error(`character reference &${name}; is not a legal XML character`);
  return String.fromCodePoint(code);
}

export const strictEntities = {
  setExternalEntities(): void {},
  addInputEntities(): void {
    throw new Error("DOCTYPE declarations are not accepted (no DTD processing)");
  },
  reset(): void {},
  setXmlVersion(): void {},
  decode(text: string): string {
    let at = text.indexOf("&");
    if (at === -1) return text;
    let out = "";
    let from = 0;
    while (at !== -1) {
      const end = text.indexOf(";", at + 1);
      if (end === -1) throw new Error(`"&" without ";" in ${show(text)}`);
      const name = text.slice(at + 1, end);
      const replacement = name.charCodeAt(0) === 0x23 ? characterReference(name) : PREDEFINED.get(name);
      if (replacement === undefined) throw new Error(`undefined entity &${name}; (XML defines &lt; &gt; &amp; &apos; &quot; and character references; no DTD is read)`);
      out += text.slice(from, at) + replacement;
      from = end + 1;
      at = text.indexOf("&", from);
    }
    return out + text.slice(from);
  },
};

// Characters XML 1.0 does not allow anywhere in a document (raw; lone surrogates cannot get past
// the fatal UTF-8 decoder). Neither the validator nor the parser looks for them.
export const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

// Written by hand for the same reason: the builder's own escaping (processEntities) is a fixed
// list without the carriage return, which XML's line-end normalisation would turn into a line
// feed; proto/README.md has it written &#13;. Only &, <, > and CR need escaping in element text.
const ESCAPES = /[&<>\r]/g;
const escapeOne = (c: string) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;");
export const escapeText = (_name: string, value: unknown): unknown => (typeof value === "string" && /[&<>\r]/.test(value) ? value.replace(ESCAPES, escapeOne) : value);
