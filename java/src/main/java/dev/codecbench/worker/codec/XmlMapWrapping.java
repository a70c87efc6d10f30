package dev.codecbench.worker.codec;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.dataformat.xml.deser.WrapperHandlingDeserializer;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * A map field's entries are repeated elements named by the field (XmlMapEntries), like an
 * unwrapped repeated field; jackson-dataformat-xml gathers such siblings into one array only for
 * properties of a list type, so the records with a map field read through this: the names of
 * their list and map properties are the ones the parser wraps.
 */
final class XmlMapWrapping extends WrapperHandlingDeserializer {
  private static final long serialVersionUID = 1L;

  private XmlMapWrapping(BeanDeserializerBase delegate, Set<String> names) {
    super(delegate, names);
  }

  /** Puts this on every record deserializer with a map property (after jackson-dataformat-xml's own). */
  static final class Modifier extends BeanDeserializerModifier {
    private static final long serialVersionUID = 1L;

    @Override
    public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription bean,
        JsonDeserializer<?> deser) {
      JsonDeserializer<?> base = deser instanceof DelegatingDeserializer d ? d.getDelegatee() : deser;
      if (!(base instanceof BeanDeserializerBase b)) {
        return deser;
      }
      Set<String> names = names(b);
      return names == null ? deser : new XmlMapWrapping(b, names);
    }
  }

  /** The list and map properties' names, or null when there is no map property. */
  private static Set<String> names(BeanDeserializerBase b) {
    Set<String> names = new HashSet<>();
    boolean map = false;
    for (Iterator<SettableBeanProperty> it = b.properties(); it.hasNext();) {
      SettableBeanProperty p = it.next();
      if (p.getType().isMapLikeType()) {
        map = true;
        names.add(p.getName());
      } else if (p.getType().isCollectionLikeType()) {
        names.add(p.getName());
      }
    }
    return map ? names : null;
  }

  @Override
  public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
      throws JsonMappingException {
    JsonDeserializer<?> c = super.createContextual(ctxt, property);
    JsonDeserializer<?> base = c instanceof DelegatingDeserializer d ? d.getDelegatee() : c;
    if (!(base instanceof BeanDeserializerBase b)) {
      return c;
    }
    Set<String> names = names(b);
    return names == null ? c : new XmlMapWrapping(b, names);
  }

  @Override
  protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> newDelegatee) {
    return new XmlMapWrapping(_verifyDeserType(newDelegatee), _namesToWrap);
  }
}
