package dev.codecbench.worker.codec;

import com.ctc.wstx.stax.WstxInputFactory;
import com.ctc.wstx.stax.WstxOutputFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.xml.XmlFactory;
import com.fasterxml.jackson.dataformat.xml.XmlFactoryBuilder;
import com.fasterxml.jackson.dataformat.xml.XmlMapper;
import com.fasterxml.jackson.dataformat.xml.XmlNameProcessor;
import com.fasterxml.jackson.dataformat.xml.deser.FromXmlParser;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.IOException;
import java.util.List;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.codehaus.stax2.XMLOutputFactory2;
import org.codehaus.stax2.XMLStreamReader2;
import org.codehaus.stax2.io.Stax2ByteArraySource;
import org.codehaus.stax2.util.StreamReader2Delegate;

/**
 * xml (proto/README.md, "Payloads"): jackson-dataformat-xml over Woodstox into the same Java
 * records as json, cbor and msgpack, one pre-built reader and writer per dataset. The root is
 * {@code <payload>}, each record a {@code <records>} element, each field an element named by its
 * proto JSON name (the names the records carry for json), repeated fields unwrapped (the element
 * repeated, absent when empty), a record that is a list (a matrix row) an element whose items
 * are {@code <cells>} elements.
 *
 * <p>What Jackson does not do on its own, and is done here: the root's name is checked;
 * attributes, namespaces, a DOCTYPE, entity references other than XML's five and mixed content
 * are rejected (Jackson would read an attribute as a field and drop an element inside a number
 * or string); an absent repeated field reads as an empty list and every other absent field but
 * a proto3 optional one fails (XmlMapping); text is escaped as the README writes it (XmlEscapes).
 */
public final class XmlCodec implements Codec {
  private static final String ID = "xml";
  static final String ROOT = "payload";

  private final WstxInputFactory inputs;
  private final Factory factory;
  private record ReaderWriter(ObjectReader reader, ObjectWriter writer) {}

  /** Per dataset: its reader and writer, or why the codec does not offer it (Offered). */
  private final PerDataset<ReaderWriter> byDataset;

  public XmlCodec() {
    this.inputs = new WstxInputFactory();
    // No DTD: no entity declarations to expand (billion laughs), no external entities to fetch.
    inputs.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    inputs.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    WstxOutputFactory outputs = new WstxOutputFactory();
    outputs.setProperty(XMLOutputFactory2.P_TEXT_ESCAPER, new XmlEscapes());
    this.factory = new Factory(XmlFactory.builder().xmlInputFactory(inputs).xmlOutputFactory(outputs));
    XmlMapper mapper =
        XmlMapper.builder(factory)
            .defaultUseWrapper(false)
            .addModule(new XmlMapping())
            .addModule(new SimpleModule("codecbench-xml-text").addDeserializer(String.class, new TextOnly())
                .addDeserializer(byte[].class, new Base64Text()))
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            // <e/> and <e></e> are "" in a string field, as the README says (Jackson's default).
            .disable(FromXmlParser.Feature.EMPTY_ELEMENT_AS_NULL)
            // Strict reading: one root element, every field present but a proto3 optional one
            // (the model's annotations, ModelGenerator) and a repeated one, absent when empty
            // (Mapping: not required, read absent as empty). An enum is its name.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();
    // XmlMapper takes an empty or blank element as an empty value of any type (for indented
    // documents): a record, number or bool read from <e/> would be made up, not read.
    for (LogicalType t : List.of(LogicalType.POJO, LogicalType.Integer, LogicalType.Float, LogicalType.Boolean)) {
      mapper.coercionConfigFor(t)
          .setAcceptBlankAsEmpty(false)
          .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
    }
    this.byDataset = new PerDataset<>(ID, Dataset.carried(), d -> {
      String why = Offered.refusal(ID, d.schema());
      why = why != null ? why : Offered.xmlRefusal(d.schema());
      if (why != null) {
        throw new IllegalStateException(why);
      }
      XmlMapping.checkRowItemsName(d);
      return new ReaderWriter(mapper.readerFor(d.recordsType()), mapper.writerFor(d.recordsType()).withRootName(ROOT));
    });
  }

  @Override
  public String refusal(Dataset<?> dataset) {
    return byDataset.get(dataset).refused();
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public <R> byte[] encode(Dataset<R> dataset, Records<R> records) throws CodecException {
    check(dataset);
    try {
      return byDataset.get(dataset).value().writer().writeValueAsBytes(records);
    } catch (IOException | RuntimeException e) {
      throw wrap("encode", e);
    }
  }

  @Override
  public <R> Records<R> decodeTyped(Dataset<R> dataset, byte[] payload) throws CodecException {
    check(dataset);
    Records<R> records;
    try {
      Strict reader = new Strict(inputs.createXMLStreamReader(new Stax2ByteArraySource(payload, 0, payload.length)));
      reader.toRoot();
      try (FromXmlParser parser = factory.createParser(reader)) {
        records = byDataset.get(dataset).value().reader().readValue(parser);
      }
    } catch (XMLStreamException | IOException | RuntimeException e) {
      throw wrap("decode", e);
    }
    if (records == null) {
      throw new CodecException(ID + " decode: <" + ROOT + "> holds no records value");
    }
    return records;
  }

  /** Refuses a dataset with a schema feature xml has no payload rule for, naming the field. */
  private void check(Dataset<?> dataset) throws CodecException {
    String why = refusal(dataset);
    if (why != null) {
      throw new CodecException(why);
    }
  }

  /** The codec's error: a rejection of ours with its message, a library's with the library's. */
  private static CodecException wrap(String what, Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof Rejected r) {
        return new CodecException(ID + " " + what + ": " + r.getMessage(), e);
      }
    }
    return CodecException.wrap(ID, what, e);
  }

  /** What the wire form does not have, found while parsing (unchecked: it crosses Jackson). */
  static final class Rejected extends RuntimeException {
    Rejected(String message) {
      super(message, null, false, false);
    }
  }

  private static String at(Location l) {
    return l == null ? "" : " at line " + l.getLineNumber() + ", column " + l.getColumnNumber();
  }

  /**
   * The stream reader Jackson reads through: Woodstox's, with the wire form's checks on every
   * event Jackson asks for: no attributes, namespaces, DOCTYPE or entity references, and no mixed
   * content (Jackson reads {@code <n>1<x/></n>} into a number or string field as "1", dropping
   * the child: XmlDeserializationContext.extractScalarFromObject). Woodstox checks
   * well-formedness (truncation, a second root, text after the root, bad UTF-8), and Jackson
   * reads to the end of the document (FAIL_ON_TRAILING_TOKENS), so the checks cover it all.
   */
  private static final class Strict extends StreamReader2Delegate {
    /** Whether the element being read has had a child element, or text other than whitespace. */
    private boolean hasChild;
    private boolean hasText;

    Strict(XMLStreamReader reader) {
      super((XMLStreamReader2) reader);
    }

    /** Moves to the root element (past an optional declaration, comments and PIs) and checks it. */
    void toRoot() throws XMLStreamException {
      for (int event = next(); event != START_ELEMENT; event = next()) {
        if (event == END_DOCUMENT) { // (Woodstox fails first: "Unexpected EOF in prolog")
          throw new Rejected("no root element");
        }
      }
      if (!ROOT.equals(getLocalName())) {
        throw new Rejected("the root element is <" + getPrefixedName() + ">, not <" + ROOT + ">");
      }
    }

    @Override
    public int next() throws XMLStreamException {
      int event = super.next();
      switch (event) {
        case START_ELEMENT -> {
          if (hasText) {
            throw new Rejected("element <" + getPrefixedName() + ">" + at(getLocation())
                + " follows text in its parent (an element holds text or elements, not both)");
          }
          hasChild = false;
          if (getAttributeCount() != 0) {
            throw new Rejected("element <" + getPrefixedName() + ">" + at(getLocation()) + " has attribute '"
                + getAttributeLocalName(0) + "' (the wire form has none)");
          }
          if (getNamespaceCount() != 0 || !getPrefixedName().equals(getLocalName())) {
            throw new Rejected("element <" + getPrefixedName() + ">" + at(getLocation())
                + " declares or uses a namespace (the wire form has none)");
          }
        }
        case END_ELEMENT -> {
          // Back in the parent, which has this child and (else it failed above) no text.
          hasChild = true;
          hasText = false;
        }
        case CHARACTERS, CDATA, SPACE -> {
          if (!hasText && !isWhiteSpace()) {
            if (hasChild) {
              throw new Rejected("text" + at(getLocation())
                  + " follows an element in its parent (an element holds text or elements, not both)");
            }
            hasText = true;
          }
        }
        case DTD -> throw new Rejected("a DOCTYPE" + at(getLocation()) + " (the wire form has none)");
        case ENTITY_REFERENCE -> throw new Rejected("entity reference &" + getLocalName() + ";" + at(getLocation())
            + " (only &lt; &gt; &amp; &apos; &quot; and character references)");
        default -> {}
      }
      return event;
    }

    @Override
    public int nextTag() throws XMLStreamException {
      int event = next();
      while (event == CHARACTERS && isWhiteSpace() || event == SPACE || event == COMMENT
          || event == PROCESSING_INSTRUCTION) {
        event = next();
      }
      if (event != START_ELEMENT && event != END_ELEMENT) {
        throw new XMLStreamException("expected a start or end tag", getLocation());
      }
      return event;
    }
  }

  /** XmlFactory whose parser over a stream reader (the one decodeTyped makes) is {@link Parser}. */
  private static final class Factory extends XmlFactory {
    private static final long serialVersionUID = 1L;

    Factory(XmlFactoryBuilder builder) {
      super(builder);
    }

    @Override
    public FromXmlParser createParser(XMLStreamReader reader) throws IOException {
      // decodeTyped hands the reader at the root's START_ELEMENT, as FromXmlParser needs it.
      return new Parser(_createContext(_createContentReference(reader), false), _parserFeatures,
          _xmlParserFeatures, _objectCodec, reader, _nameProcessor);
    }
  }

  /**
   * FromXmlParser has no text for a number it typed from an element's text: Jackson's message for
   * an int out of range then reads "Numeric value (null) out of range of int", and one for a long
   * fails with a NullPointerException. The text is the element's.
   */
  private static final class Parser extends FromXmlParser {
    Parser(IOContext context, int features, int xmlFeatures, ObjectCodec codec, XMLStreamReader reader,
        XmlNameProcessor names) throws IOException {
      super(context, features, xmlFeatures, codec, reader, names);
    }

    @Override
    public String getText() throws IOException {
      return _currToken == JsonToken.VALUE_NUMBER_INT || _currToken == JsonToken.VALUE_NUMBER_FLOAT
          ? _currText.trim() : super.getText();
    }
  }

  /**
   * A bytes field's element holds standard base64 with padding (proto/README.md); an empty one
   * ({@code <raw/>}) is empty bytes. Jackson's own reader fails on an empty element in a list.
   */
  private static final class Base64Text extends StdScalarDeserializer<byte[]> {
    private static final long serialVersionUID = 1L;

    Base64Text() {
      super(byte[].class);
    }

    @Override
    public byte[] deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.hasToken(JsonToken.START_OBJECT) && p.nextToken() == JsonToken.END_OBJECT) {
        return new byte[0]; // an empty element in a list reads as an empty object
      }
      if (!p.hasToken(JsonToken.VALUE_STRING)) {
        return (byte[]) ctxt.handleUnexpectedToken(byte[].class, p);
      }
      String text = p.getText();
      try {
        return java.util.Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        return (byte[]) ctxt.handleWeirdStringValue(byte[].class, text, "not standard base64: " + e.getMessage());
      }
    }
  }

  /**
   * A string field's element holds text only: Jackson's String deserializer reads an element of
   * child elements as "" (XmlDeserializationContext.extractScalarFromObject), a malformed payload
   * taken for a good one.
   */
  private static final class TextOnly extends StdScalarDeserializer<String> {
    private static final long serialVersionUID = 1L;

    TextOnly() {
      super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.hasToken(JsonToken.VALUE_STRING)) {
        return p.getText();
      }
      if (p.hasToken(JsonToken.START_OBJECT)) {
        String name = p.currentName();
        if (p.nextToken() == JsonToken.END_OBJECT) {
          return ""; // <e/> in a list reads as an empty object
        }
        return (String) ctxt.reportInputMismatch(this, "element <%s> holds elements where a string's text belongs",
            name);
      }
      return (String) ctxt.handleUnexpectedToken(String.class, p);
    }
  }

}
