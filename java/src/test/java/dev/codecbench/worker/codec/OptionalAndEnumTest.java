package dev.codecbench.worker.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import codecbench.v1.fb.MediaDataset;
import com.google.flatbuffers.FlatBufferBuilder;
import dev.codecbench.worker.CanonicalVectors;
import dev.codecbench.worker.TestDatasets;
import dev.codecbench.worker.dataset.LazyField;
import dev.codecbench.worker.model.Records;
import dev.codecbench.worker.model.codecbench.v1.Media;
import dev.codecbench.worker.model.codecbench.v1.MediaContent;
import dev.codecbench.worker.model.codecbench.v1.MediaImage;
import dev.codecbench.worker.model.codecbench.v1.MediaImageSize;
import dev.codecbench.worker.model.codecbench.v1.MediaPlayer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * proto3 optional fields and enums (proto/README.md, "Payloads"), on the media dataset: an
 * optional field set to its default and one left unset both survive every codec as they were
 * (verification tells them apart: 0 is not null); unset is left out of the payload; an enum is
 * its value name in schema-less codecs and its number in flatbuffers, and lazy reads its name.
 */
class OptionalAndEnumTest {
  private static final CodecRegistry CODECS = new CodecRegistry();

  static Stream<String> codecs() {
    return CODECS.all().stream().map(Codec::id);
  }

  /** The canonical first record with its optional fields set to their defaults, then unset. */
  private static Records<MediaContent> setToDefaultAndUnset() {
    MediaContent c = CanonicalVectors.canonical(TestDatasets.MEDIA).model().records().get(0);
    Media m = c.media();
    Media defaults = new Media(m.uri(), "", m.width(), m.height(), m.format(), m.duration(), m.size(), 0,
        m.persons(), MediaPlayer.MEDIA_PLAYER_UNSPECIFIED, "");
    Media unset = new Media(m.uri(), null, m.width(), m.height(), m.format(), m.duration(), m.size(), null,
        m.persons(), MediaPlayer.MEDIA_PLAYER_FLASH, null);
    List<MediaImage> images = List.of(new MediaImage("a", "", 1, 2, MediaImageSize.MEDIA_IMAGE_SIZE_UNSPECIFIED),
        new MediaImage("b", null, 3, 4, MediaImageSize.MEDIA_IMAGE_SIZE_LARGE));
    return new Records<>(List.of(new MediaContent(defaults, images), new MediaContent(unset, List.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void setToDefaultAndUnsetSurviveEveryCodec(String codecId) throws Exception {
    Codec codec = CODECS.byId(codecId).orElseThrow();
    Records<MediaContent> records = setToDefaultAndUnset();
    byte[] payload = codec.encode(TestDatasets.MEDIA, records);
    assertEquals(records, codec.decodeTyped(TestDatasets.MEDIA, payload));
    if (codec.decodeModes().contains(Codec.TREE)) {
      assertEquals(records, codec.treeToRecords(TestDatasets.MEDIA, codec.decodeTree(payload)));
    }
  }

  @Test
  void jsonLeavesAnUnsetFieldOutAndWritesADefaultOneAndEnumsByName() throws Exception {
    String json = new String(new JsonCodec().encode(TestDatasets.MEDIA, setToDefaultAndUnset()), StandardCharsets.UTF_8);
    assertTrue(json.contains("\"size\":\"MEDIA_IMAGE_SIZE_UNSPECIFIED\"}"), json);
    assertTrue(json.contains("\"title\":\"\",\"width\""), json);
    assertTrue(json.contains("\"bitrate\":0,"), json);
    assertEquals(2, json.split("\"title\"", -1).length - 1, json); // the two set ones only
    assertEquals(1, json.split("\"bitrate\"", -1).length - 1, json);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"player\":1", "\"player\":\"MEDIA_PLAYER_DVD\"", "\"uri\":null"})
  void jsonRefusesAnEnumByNumberAnUnknownNameAndANullRequiredField(String bad) throws Exception {
    String json = new String(new JsonCodec().encode(TestDatasets.MEDIA, setToDefaultAndUnset()), StandardCharsets.UTF_8);
    String field = bad.substring(0, bad.indexOf(':'));
    String broken = json.replaceFirst(field + ":(\"[^\"]*\"|[0-9]+)", bad);
    assertFalse(broken.equals(json), broken);
    assertThrows(CodecException.class, () -> new JsonCodec().decodeTyped(TestDatasets.MEDIA,
        broken.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void flatbuffersWritesASetOptionalScalarAtItsDefaultAndLeavesAnUnsetOneOut() throws Exception {
    byte[] payload = new FlatbuffersCodec().encode(TestDatasets.MEDIA, setToDefaultAndUnset());
    MediaDataset root = MediaDataset.getRootAsMediaDataset(ByteBuffer.wrap(payload));
    int bitrate = 4 + 2 * 7; // Media.bitrate's vtable entry: the 8th field, slot 7
    assertTrue(FlatBufferBuilder.isFieldPresent(root.records(0).media(), bitrate), "set to 0: written");
    assertFalse(FlatBufferBuilder.isFieldPresent(root.records(1).media(), bitrate), "unset: absent");
    assertEquals("", root.records(0).media().title());
    assertEquals(null, root.records(1).media().title());
    assertEquals(codecbench.v1.fb.MediaPlayer.MEDIA_PLAYER_FLASH, root.records(1).media().player());
  }

  @Test
  void flatbuffersRefusesAnEnumNumberTheEnumDoesNotHave() {
    FlatBufferBuilder b = new FlatBufferBuilder();
    int image = codecbench.v1.fb.MediaImage.createMediaImage(b, b.createString("u"), 0, 1, 2, 7);
    int content = codecbench.v1.fb.MediaContent.createMediaContent(b, 0,
        codecbench.v1.fb.MediaContent.createImagesVector(b, new int[] {image}));
    b.finish(MediaDataset.createMediaDataset(b, MediaDataset.createRecordsVector(b, new int[] {content})));
    CodecException e = assertThrows(CodecException.class,
        () -> new FlatbuffersCodec().decodeTyped(TestDatasets.MEDIA, b.sizedByteArray()));
    assertEquals("flatbuffers decode: records[0].images[0].size: enum value 7 is not a value of "
        + "codecbench.v1.MediaImageSize", e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"bson", "flatbuffers"})
  void lazyReadsAnEnumAsItsName(String codecId) throws Exception {
    Codec codec = CODECS.byId(codecId).orElseThrow();
    var canonical = CanonicalVectors.canonical(TestDatasets.MEDIA);
    List<String> read = new ArrayList<>();
    codec.decodeLazy(TestDatasets.MEDIA, codec.encode(TestDatasets.MEDIA, canonical.model()), List.of("media.player"),
        read::add);
    assertEquals(LazyField.expected(canonical, List.of("media.player")), read);
    assertTrue(read.get(0).startsWith("MEDIA_PLAYER_"), read.get(0));
  }
}
