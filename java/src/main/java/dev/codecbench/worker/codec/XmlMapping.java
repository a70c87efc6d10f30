package dev.codecbench.worker.codec;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.NopAnnotationIntrospector;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.databind.util.Converter;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.dataset.Schema;
import java.util.List;

/**
 * What annotations would say on the model records, for any record type and without touching
 * them (an annotation introspector, ahead of Jackson's): a list is not required and reads absent
 * as empty ({@code @JsonProperty(required = false)}, {@code @JsonSetter(nulls = AS_EMPTY)}; the
 * model's own annotations require every other field but an optional one), and the items of a
 * list of lists (in the model only the records of a dataset whose record is a list) go through Row ({@code @JsonSerialize(contentConverter)} /
 * {@code @JsonDeserialize(contentConverter)} on {@code Records.records}).
 */
final class XmlMapping extends Module {
  /**
   * A record that is a list (a matrix row, {@code List<String>} in the model) as an element of
   * its own whose items are {@code <cells>} elements: Jackson writes a list of lists flattened
   * (every item of every row a {@code <records>} element; the rows are lost). Row holds the list
   * by reference (no copy) on the way out and hands it back on the way in.
   */
  record Row<E>(List<E> cells) {}

  /** The name of Row's items: the proto JSON name of a list record's one field. */
  private static final String ROW_ITEMS = "cells";

  /**
   * Row's component name is fixed: a dataset whose record model is a list must name its row
   * message's one repeated field the same (a new dataset with another name fails here, loudly).
   */
  static void checkRowItemsName(Dataset<?> d) {
    if (!d.recordsType().containedType(0).isCollectionLikeType()) {
      return;
    }
    List<Schema.Field> fields = d.schema().recordMessage().fields();
    if (fields.size() != 1 || !fields.get(0).repeated() || !fields.get(0).jsonName().equals(ROW_ITEMS)) {
      throw new IllegalStateException("xml: dataset " + d.id() + "'s row message " + d.message()
          + " is not one repeated field '" + ROW_ITEMS + "'");
    }
  }

  @Override
  public String getModuleName() {
    return "codecbench-xml";
  }

  @Override
  public Version version() {
    return Version.unknownVersion();
  }

  @Override
  public void setupModule(SetupContext context) {
    context.addBeanDeserializerModifier(new XmlMapWrapping.Modifier());
    context.insertAnnotationIntrospector(new NopAnnotationIntrospector() {
      private static final long serialVersionUID = 1L;

      @Override
      public Boolean hasRequiredMarker(AnnotatedMember m) {
        return isList(m) || XmlMapEntries.isMap(m) ? Boolean.FALSE : null;
      }

      @Override
      public JsonSetter.Value findSetterInfo(Annotated a) {
        if (a instanceof AnnotatedMember m && XmlMapEntries.isMap(m)) {
          // An absent map (no entries) reads as null, which the model's constructor makes empty.
          return JsonSetter.Value.construct(Nulls.SET, Nulls.FAIL);
        }
        return a instanceof AnnotatedMember m && isList(m)
            ? JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY) : JsonSetter.Value.empty();
      }

      @Override
      public Object findSerializationConverter(Annotated a) {
        return a instanceof AnnotatedMember m && XmlMapEntries.isMap(m) ? XmlMapEntries.writer(m) : null;
      }

      @Override
      public Object findDeserializationConverter(Annotated a) {
        return a instanceof AnnotatedMember m && XmlMapEntries.isMap(m) ? XmlMapEntries.reader(m) : null;
      }

      @Override
      public Object findSerializationContentConverter(AnnotatedMember a) {
        JavaType items = rowType(a.getType());
        return items == null ? null : new RowConverter(items, true);
      }

      @Override
      public Object findDeserializationContentConverter(AnnotatedMember a) {
        JavaType items = rowType(a.getType());
        return items == null ? null : new RowConverter(items, false);
      }
    });
  }

  private static boolean isList(AnnotatedMember m) {
    return m.getType() != null && m.getType().isCollectionLikeType();
  }

  /** For a list of lists, the type of its items (lists); otherwise null. */
  private static JavaType rowType(JavaType t) {
    if (t == null || !t.isCollectionLikeType() || !t.getContentType().isCollectionLikeType()) {
      return null;
    }
    return t.getContentType();
  }

  /** A list to its Row (writing) or a Row to its list (reading), by reference. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class RowConverter implements Converter<Object, Object> {
    private final JavaType list;
    private final boolean toRow;

    RowConverter(JavaType list, boolean toRow) {
      this.list = list;
      this.toRow = toRow;
    }

    private JavaType row(TypeFactory types) {
      return types.constructParametricType(Row.class, list.getContentType());
    }

    @Override
    public Object convert(Object value) {
      return toRow ? new Row((List) value) : ((Row) value).cells();
    }

    @Override
    public JavaType getInputType(TypeFactory types) {
      return toRow ? list : row(types);
    }

    @Override
    public JavaType getOutputType(TypeFactory types) {
      return toRow ? row(types) : list;
    }
  }
}
