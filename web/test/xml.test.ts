import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { xmlCodec } from "../src/codecs/xml";
import { BeersDatasetSchema, DummyDatasetSchema, MatrixDatasetSchema, NumericDatasetSchema, OwnersDatasetSchema } from "../src/gen/codecbench/v1/datasets_pb";
import { compareRecords } from "../src/datasets/compare";
import type { Dataset } from "../src/datasets/dataset";
import { datasetById } from "../src/datasets/registry";
import { canonicalPb, datasetIds } from "./vectors";

// What is particular to xml in the browser: the exact element layout of proto/README.md (repeated
// fields unwrapped, a matrix row as <records><cells>..), text kept byte for byte (CR as &#13;,
// leading/trailing and whitespace-only text, <>&), empty elements in both forms, lists of 0 and 1
// elements (the parser gives one element as a value, not a list), int64 beyond 2^53, and what
// other writers may legitimately do (a declaration, indentation, other number spellings, CDATA).

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const utf8 = (xml: string) => new TextEncoder().encode(xml);

/** Model records of a dataset from protobuf-es init values (the way control's canonical blob is read). */
function recordsOf<Desc extends DescMessage>(id: Parameters<typeof datasetById>[0], schema: Desc, init: MessageInitShape<Desc>): unknown[] {
  return datasetById(id).fromCanonical(toBinary(schema, create(schema, init)));
}

function roundTrip(dataset: Dataset, records: unknown[]): { wire: string; back: unknown[] } {
  const prepared = xmlCodec.prepare(dataset);
  const payload = prepared.encode(records);
  const back = prepared.decodeTyped(payload);
  expect(compareRecords(dataset.record, records, back)).toBeNull();
  return { wire: text(payload), back };
}

describe("xml wire shape", () => {
  it("a tiny record: fields in field order named by their JSON names, a repeated message field unwrapped, int64 exact, doubles shortest", () => {
    const numeric = datasetById("numeric");
    const records = recordsOf("numeric", NumericDatasetSchema, {
      records: [
        {
          id: "a",
          index: 1,
          numbr: -2,
          coordinates: [
            { timestamp: 2n ** 53n + 1n, latitude: 0.1, longitude: -0 },
            { timestamp: -(2n ** 63n), latitude: 2166, longitude: 1e-7 },
          ],
        },
      ],
    });
    expect(roundTrip(numeric, records).wire).toBe(
      "<payload><records><_id>a</_id><index>1</index><numbr>-2</numbr>" +
        "<coordinates><timestamp>9007199254740993</timestamp><latitude>0.1</latitude><longitude>-0</longitude></coordinates>" +
        "<coordinates><timestamp>-9223372036854775808</timestamp><latitude>2166</latitude><longitude>1e-7</longitude></coordinates>" +
        "</records></payload>",
    );
    expect(Object.is((roundTrip(numeric, records).back[0] as { coordinates: { longitude: number }[] }).coordinates[0]!.longitude, -0)).toBe(true);
  });

  it("a repeated string field unwrapped, an empty one absent, bools as true/false", () => {
    const dummy = datasetById("dummy");
    const records = recordsOf("dummy", DummyDatasetSchema, { records: [{ id: "x", isActive: true, tags: ["t1", "t2"], friends: [] }] });
    const { wire } = roundTrip(dummy, records);
    expect(wire).toContain("<isActive>true</isActive>");
    expect(wire).toContain("<latitude>0</latitude><longitude>0</longitude><tags>t1</tags><tags>t2</tags><greeting></greeting>");
    expect(wire).not.toContain("<friends");
  });

  it("a matrix row as <records> holding one <cells> per cell; a row without cells as an empty <records>", () => {
    const matrix = datasetById("matrix");
    const records = recordsOf("matrix", MatrixDatasetSchema, { records: [{ cells: ["1.5", "", " x "] }, { cells: [] }, { cells: ["-0.25"] }] });
    expect(records).toEqual([["1.5", "", " x "], [], ["-0.25"]]);
    expect(roundTrip(matrix, records).wire).toBe(
      "<payload><records><cells>1.5</cells><cells></cells><cells> x </cells></records><records></records><records><cells>-0.25</cells></records></payload>",
    );
  });

  it("no records as an empty <payload>", () => {
    for (const id of datasetIds) expect(roundTrip(datasetById(id), []).wire).toBe("<payload></payload>");
  });
});

describe("xml text survives byte for byte", () => {
  const beers = datasetById("beers");
  const tricky = {
    alcohol: 5,
    name: "a\r\nb\rc\nd",
    brewedBy: "  leading",
    style: "trailing \t",
    availability: "   ",
    serving: `<tag attr="v">&amp; 'q' ]]> </tag>`,
    details: "\t\n\r \u00e9\u4e2d\u{1f37a} &#13; &lt;",
  };

  it("CR written as &#13; (XML line-end normalisation would read a raw CR as LF), < > & escaped, whitespace kept", () => {
    const records = recordsOf("beers", BeersDatasetSchema, { records: [tricky] });
    const { wire } = roundTrip(beers, records);
    expect(wire).not.toContain("\r");
    expect(wire).toContain("<name>a&#13;\nb&#13;c\nd</name>");
    expect(wire).toContain("<brewedBy>  leading</brewedBy><style>trailing \t</style><availability>   </availability>");
    expect(wire).toContain(`<serving>&lt;tag attr="v"&gt;&amp;amp; 'q' ]]&gt; &lt;/tag&gt;</serving>`);
    expect(wire).toContain("<details>\t\n&#13; \u00e9\u4e2d\u{1f37a} &amp;#13; &amp;lt;</details>");
  });

  it("a raw CR (or CRLF) in a payload reads as LF, as XML requires; only &#13; is a CR", () => {
    const prepared = xmlCodec.prepare(beers);
    const record = (name: string) =>
      `<records><alcohol>1</alcohol><name>${name}</name><brewedBy></brewedBy><style></style><availability></availability><serving></serving><details></details></records>`;
    const names = prepared.decodeTyped(utf8(`<payload>${record("a\r\nb\rc")}${record("a&#13;&#xD;&#xd;")}</payload>`)).map((r) => (r as { name: string }).name);
    expect(names).toEqual(["a\nb\nc", "a\r\r\r"]);
  });

  it("<e/> and <e></e> both read as the empty string, <e> </e> as a space", () => {
    const prepared = xmlCodec.prepare(beers);
    const [record] = prepared.decodeTyped(
      utf8("<payload><records><alcohol>1</alcohol><name/><brewedBy></brewedBy><style> </style><availability/><serving></serving><details /></records></payload>"),
    );
    expect(record).toEqual({ alcohol: 1, name: "", brewedBy: "", style: " ", availability: "", serving: "", details: "" });
  });
});

describe("xml lists of 0 and 1 elements (the parser gives one element as a value)", () => {
  it("repeated strings and messages with none, one and two elements", () => {
    const dummy = datasetById("dummy");
    const records = recordsOf("dummy", DummyDatasetSchema, {
      records: [
        { id: "none", tags: [], friends: [] },
        { id: "one", tags: ["only"], friends: [{ id: 7, name: "f" }] },
        { id: "two", tags: ["a", ""], friends: [{ id: 1, name: "" }, { id: 2, name: " " }] },
      ],
    });
    const { back } = roundTrip(dummy, records);
    expect(back.map((r) => (r as { tags: string[] }).tags)).toEqual([[], ["only"], ["a", ""]]);
    expect(back.map((r) => (r as { friends: unknown[] }).friends.length)).toEqual([0, 1, 2]);
  });

  it("payloads of one record, and matrix rows of one cell", () => {
    for (const id of datasetIds) {
      const dataset = datasetById(id);
      roundTrip(dataset, dataset.fromCanonical(canonicalPb(id)).slice(0, 1));
    }
    roundTrip(datasetById("matrix"), [["0.5"]]);
  });
});

describe("xml int64 beyond 2^53", () => {
  const owners = datasetById("owners");
  const extremes = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 3n, 0n];
  it("round-trips exactly as bigints, written in decimal", () => {
    const records = recordsOf("owners", OwnersDatasetSchema, { records: extremes.map((telephone, uid) => ({ uid, name: `o${uid}`, telephone, cars: [] })) });
    const { wire, back } = roundTrip(owners, records);
    for (const value of extremes) expect(wire).toContain(`<telephone>${value}</telephone>`);
    expect(back.map((r) => (r as { telephone: unknown }).telephone)).toEqual(extremes);
  });
  it("refuses values outside int64 and int32", () => {
    const prepared = xmlCodec.prepare(owners);
    const owner = (telephone: string, uid = "1") =>
      utf8(`<payload><records><uid>${uid}</uid><name>n</name><telephone>${telephone}</telephone><address>a</address><licenceNumber>1</licenceNumber><idNumber>2</idNumber><taxNumber>3</taxNumber></records></payload>`);
    expect((prepared.decodeTyped(owner("+0042"))[0] as { telephone: bigint }).telephone).toBe(42n);
    expect(() => prepared.decodeTyped(owner("9223372036854775808"))).toThrow(/^record 0 field telephone: "9223372036854775808" is not an int64$/);
    expect(() => prepared.decodeTyped(owner("-9223372036854775809"))).toThrow(/is not an int64/);
    expect(() => prepared.decodeTyped(owner("1e3"))).toThrow(/^record 0 field telephone: "1e3" is not an int64$/);
    expect(() => prepared.decodeTyped(owner(""))).toThrow(/^record 0 field telephone: "" is not an int64$/);
    expect(() => prepared.decodeTyped(owner("1", "2147483648"))).toThrow(/^record 0 field uid: "2147483648" is not an int32$/);
    expect(() => prepared.decodeTyped(owner("1", "1.5"))).toThrow(/^record 0 field uid: "1.5" is not an int32$/);
  });
});

describe("xml reads what other writers may write", () => {
  it("a declaration, indentation between elements, comments, CDATA and <e/>", () => {
    for (const id of datasetIds) {
      const dataset = datasetById(id);
      const records = dataset.fromCanonical(canonicalPb(id));
      const compact = text(xmlCodec.prepare(dataset).encode(records));
      // Empty elements as <e/>, then every element on its own line (leaf text is unchanged: text never holds "><").
      const pretty = `<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${id} -->\n${compact.replace(/<(\w+)><\/\1>/g, "<$1/>").replace(/></g, ">\n  <")}\n`;
      const decoded = xmlCodec.prepare(dataset).decodeTyped(utf8(pretty));
      // Whitespace between elements is not text of any field: only leaf text is.
      expect(compareRecords(dataset.record, records, decoded), id).toBeNull();
    }
    const beers = xmlCodec.prepare(datasetById("beers"));
    const [record] = beers.decodeTyped(
      utf8(
        "<payload><records><alcohol>2166.0</alcohol><name><![CDATA[<b>&amp;</b>]]></name><brewedBy>x<!-- c -->y</brewedBy>" +
          "<style></style><availability/><serving/><details/></records></payload>",
      ),
    );
    expect(record).toMatchObject({ alcohol: 2166, name: "<b>&amp;</b>", brewedBy: "xy" });
  });

  it("doubles in Java's and Rust's spellings", () => {
    const beers = xmlCodec.prepare(datasetById("beers"));
    const alcohol = (value: string) =>
      (
        beers.decodeTyped(
          utf8(`<payload><records><alcohol>${value}</alcohol><name/><brewedBy/><style/><availability/><serving/><details/></records></payload>`),
        )[0] as { alcohol: number }
      ).alcohol;
    expect(alcohol("1.0E-5")).toBe(1e-5);
    expect(alcohol("4.9E-324")).toBe(5e-324);
    expect(alcohol("1.7976931348623157E308")).toBe(Number.MAX_VALUE);
    expect(alcohol("0.30000000000000004")).toBe(0.1 + 0.2);
    expect(Object.is(alcohol("-0.0"), -0)).toBe(true);
    expect(alcohol(".5")).toBe(0.5);
    expect(alcohol("inf")).toBe(Infinity);
    expect(alcohol("-Infinity")).toBe(-Infinity);
    expect(alcohol("NaN")).toBeNaN();
    for (const bad of ["0x10", " 1", "1 ", "1_0", "", "e5", "1e", "Infinityx"]) expect(() => alcohol(bad), bad).toThrow(/is not a double$/);
  });
});
