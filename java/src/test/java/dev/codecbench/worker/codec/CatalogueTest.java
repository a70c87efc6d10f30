package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.Results.TimedRegion;
import dev.codecbench.worker.LibraryVersions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The catalogue reader's strictness (every refusal names the codec) and what it makes of notes and
 * timed regions; the real catalogue's agreement with the registry is GoldenVectorsTest's.
 */
class CatalogueTest {
  private static final String REGIONS =
      "timedRegions: [{operation: encode, contains: [serialize]}, {operation: typed, contains: [parse]}]";

  /** A catalogue of one codec, json, whose Java implementation is {@code java}. */
  private static String json(String java) {
    return "codecs:\n  - id: json\n    mediaType: application/json\n    deterministic: false\n"
        + "    implementations:\n      java: " + java + "\n";
  }

  private static Map<String, Catalogue.Entry> parse(String text) throws IOException {
    return Catalogue.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
        Map.of("lib", "1.2.3")::get);
  }

  private static String refused(String text) {
    return assertThrows(IOException.class, () -> parse(text)).getMessage();
  }

  @Test
  void anUnknownKeyOrATwiceListedIdIsRefused() {
    String ok = json("{library: jackson-databind, modes: [typed], " + REGIONS + "}");
    String unknown = refused(ok.replace("deterministic", "determinstic"));
    assertTrue(unknown.contains("codec json") && unknown.contains("determinstic"), unknown);
    String twice = refused(ok + ok.substring("codecs:\n".length()));
    assertTrue(twice.contains("json is listed twice"), twice);
  }

  @Test
  void anUnknownRegionKeyIsRefusedNamingTheCodec() {
    String m = refused(json("{library: l, modes: [typed], timedRegions: [{operation: encode, contains: [serialize]}, "
        + "{operation: typed, contains: [parse], notes: oops}]}"));
    assertTrue(m.contains("codec json at implementations.java.timedRegions[1]") && m.contains("\"notes\""), m);
  }

  @Test
  void regionsOutOfOrderOrMissingAreRefusedNamingTheCodec() {
    String swapped = refused(json("{library: l, modes: [typed, tree], timedRegions: [{operation: encode, contains: [a]}, "
        + "{operation: tree, contains: [parse]}, {operation: typed, contains: [parse]}]}"));
    assertTrue(swapped.contains("codec json / java: timed regions [encode, tree, typed] should be "
        + "[encode, typed, tree]"), swapped);
    // "encode streaming" belongs just before "streaming".
    String noEncodeStreaming = refused(json("{library: l, modes: [typed, streaming], timedRegions: ["
        + "{operation: encode, contains: [a]}, {operation: typed, contains: [a]}, {operation: streaming, contains: [a]}]}"));
    assertTrue(noEncodeStreaming.contains("should be [encode, typed, encode streaming, streaming]"), noEncodeStreaming);
    String none = refused(json("{library: l, modes: [typed]}"));
    assertTrue(none.contains("codec json / java has no timedRegions"), none);
    String empty = refused(json("{library: l, modes: [typed], timedRegions: [{operation: encode, contains: []}, "
        + "{operation: typed, contains: [parse]}]}"));
    assertTrue(empty.contains("codec json / java: timed region encode contains nothing"), empty);
  }

  @Test
  void anUnknownVersionIsRefusedNamingTheCodecAndTheName() {
    String m = refused(json("{library: l, modes: [typed], notes: \"on {version:nope}\", " + REGIONS + "}"));
    assertTrue(m.contains("codec json / java") && m.contains("{version:nope}"), m);
    String inRegion = refused(json("{library: l, modes: [typed], timedRegions: [{operation: encode, contains: [a], "
        + "note: \"{version:nope}\"}, {operation: typed, contains: [parse]}]}"));
    assertTrue(inRegion.contains("codec json / java") && inRegion.contains("{version:nope}"), inRegion);
  }

  @Test
  void versionsAreSubstitutedInJavasNotesAndRegionNotesOnly() throws IOException {
    String text = json("{library: l, modes: [typed], notes: \"l {version:lib} on {version:lib}\", "
        + "timedRegions: [{operation: encode, contains: [serialize], note: \"with {version:lib}\"}, "
        + "{operation: typed, contains: [parse]}]}")
        + "      rust: {library: r, modes: [typed], notes: \"{version:serde}\", " + REGIONS + "}\n";
    Map<String, Catalogue.Implementation> impls = parse(text).get("json").implementations();
    Catalogue.Implementation java = impls.get("java");
    assertEquals("l 1.2.3 on 1.2.3", java.notes());
    assertEquals(List.of(new Catalogue.Region("encode", List.of("serialize"), "with 1.2.3"),
        new Catalogue.Region("typed", List.of("parse"), "")), java.timedRegions());
    // Another language's libraries are its build's to resolve.
    assertEquals("{version:serde}", impls.get("rust").notes());
  }

  @Test
  void theCodecsAnnounceTheirCatalogueEntry() {
    CodecRegistry codecs = new CodecRegistry();
    for (Codec c : codecs.all()) {
      Catalogue.Implementation java = Catalogue.java(c.id());
      assertEquals(java.notes(), c.notes(), c.id());
      assertFalse(c.notes().contains("{version:"), c.id());
      List<String> ops = c.timedRegions().stream().map(TimedRegion::getOperation).toList();
      assertEquals(Catalogue.regionOperations(c.decodeModes()), ops, c.id());
    }
    Codec bson = codecs.byId("bson").orElseThrow();
    assertTrue(bson.notes().contains("org.mongodb:bson " + LibraryVersions.get("mongodb-bson") + " "), bson.notes());
    // Numbers the notes quote from the code: change both together.
    assertTrue(codecs.byId("cbor").orElseThrow().notes().contains("more than " + CborCodec.MAX_TAGS + " on one value"));
    String flat = codecs.byId("flatbuffers").orElseThrow().notes();
    assertTrue(flat.contains("bounded by " + FlatbuffersCodec.SHARING + " times the buffer"), flat);
    for (TimedRegion r : codecs.byId("flatbuffers").orElseThrow().timedRegions().subList(1, 3)) {
      assertTrue(r.getNote().contains("bounded by " + FlatbuffersCodec.SHARING + " times"), r.getNote());
    }
  }
}
