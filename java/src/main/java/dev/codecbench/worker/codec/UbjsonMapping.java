package dev.codecbench.worker.codec;

import static com.devsmart.ubjson.UBValueFactory.createBool;
import static com.devsmart.ubjson.UBValueFactory.createFloat64;
import static com.devsmart.ubjson.UBValueFactory.createInt;
import static com.devsmart.ubjson.UBValueFactory.createString;

import com.devsmart.ubjson.UBArray;
import com.devsmart.ubjson.UBObject;
import com.devsmart.ubjson.UBValue;
import com.devsmart.ubjson.UBValueFactory;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.BeerRecord;
import dev.codecbench.worker.model.DocRecord;
import dev.codecbench.worker.model.DummyRecord;
import dev.codecbench.worker.model.NumericRecord;
import dev.codecbench.worker.model.OwnerRecord;
import dev.codecbench.worker.model.Records;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The native model to and from com.dev-smart:ubjson's value tree, written out by hand per record
 * type: the library has no data binding. Wire names are the proto JSON names. Reading is strict:
 * a missing field, a value of the wrong kind or an integer out of its field's range is an error
 * naming the field.
 */
final class UbjsonMapping {
  private UbjsonMapping() {}

  /** The payload does not have the dataset's shape. */
  static final class ShapeException extends RuntimeException {
    ShapeException(String message) {
      super(message, null, false, false);
    }
  }

  @SuppressWarnings("unchecked")
  static <R> UBValue toTree(Dataset<R> dataset, Records<R> records) {
    Function<R, UBValue> one = (Function<R, UBValue>) writer(dataset);
    List<R> list = records.records();
    UBValue[] out = new UBValue[list.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = one.apply(list.get(i));
    }
    UBObject root = UBValueFactory.createObject();
    root.put("records", UBValueFactory.createArray(out));
    return root;
  }

  @SuppressWarnings("unchecked")
  static <R> Records<R> fromTree(Dataset<R> dataset, UBValue root) {
    Function<UBValue, R> one = (Function<UBValue, R>) reader(dataset);
    UBArray array = array(object(root, "the payload"), "records");
    int n = array.size();
    List<R> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      try {
        out.add(one.apply(array.get(i)));
      } catch (ShapeException e) {
        throw new ShapeException("record " + i + ": " + e.getMessage());
      }
    }
    return new Records<>(out);
  }

  private static Function<?, UBValue> writer(Dataset<?> d) {
    return switch (d.id()) {
      case "dummy" -> (Function<DummyRecord, UBValue>) UbjsonMapping::dummy;
      case "numeric" -> (Function<NumericRecord, UBValue>) UbjsonMapping::numeric;
      case "owners" -> (Function<OwnerRecord, UBValue>) UbjsonMapping::owner;
      case "docs" -> (Function<DocRecord, UBValue>) UbjsonMapping::doc;
      case "beers" -> (Function<BeerRecord, UBValue>) UbjsonMapping::beer;
      case "matrix" -> (Function<List<String>, UBValue>) UbjsonMapping::strings;
      default -> throw new IllegalArgumentException("no ubjson mapping for dataset " + d.id());
    };
  }

  private static Function<UBValue, ?> reader(Dataset<?> d) {
    return switch (d.id()) {
      case "dummy" -> UbjsonMapping::dummy;
      case "numeric" -> UbjsonMapping::numeric;
      case "owners" -> UbjsonMapping::owner;
      case "docs" -> UbjsonMapping::doc;
      case "beers" -> UbjsonMapping::beer;
      case "matrix" -> v -> strings(v, "row");
      default -> throw new IllegalArgumentException("no ubjson mapping for dataset " + d.id());
    };
  }

  // ---- native model -> tree -------------------------------------------------------------------

  private static UBValue dummy(DummyRecord r) {
    UBObject o = UBValueFactory.createObject();
    o.put("_id", createString(r.id()));
    o.put("index", createInt(r.index()));
    o.put("guid", createString(r.guid()));
    o.put("isActive", createBool(r.isActive()));
    o.put("balance", createFloat64(r.balance()));
    o.put("picture", createString(r.picture()));
    o.put("age", createInt(r.age()));
    o.put("eyeColor", createString(r.eyeColor()));
    o.put("name", createString(r.name()));
    o.put("gender", createString(r.gender()));
    o.put("company", createString(r.company()));
    o.put("email", createString(r.email()));
    o.put("phone", createString(r.phone()));
    o.put("address", createString(r.address()));
    o.put("about", createString(r.about()));
    o.put("registered", createString(r.registered()));
    o.put("latitude", createFloat64(r.latitude()));
    o.put("longitude", createFloat64(r.longitude()));
    o.put("tags", strings(r.tags()));
    UBValue[] friends = new UBValue[r.friends().size()];
    for (int i = 0; i < friends.length; i++) {
      DummyRecord.Friend f = r.friends().get(i);
      UBObject fo = UBValueFactory.createObject();
      fo.put("id", createInt(f.id()));
      fo.put("name", createString(f.name()));
      friends[i] = fo;
    }
    o.put("friends", UBValueFactory.createArray(friends));
    o.put("greeting", createString(r.greeting()));
    o.put("favoriteFruit", createString(r.favoriteFruit()));
    return o;
  }

  private static UBValue numeric(NumericRecord r) {
    UBObject o = UBValueFactory.createObject();
    o.put("_id", createString(r.id()));
    o.put("index", createInt(r.index()));
    o.put("numbr", createInt(r.numbr()));
    UBValue[] coords = new UBValue[r.coordinates().size()];
    for (int i = 0; i < coords.length; i++) {
      NumericRecord.Coordinate c = r.coordinates().get(i);
      UBObject co = UBValueFactory.createObject();
      co.put("timestamp", createInt(c.timestamp()));
      co.put("latitude", createFloat64(c.latitude()));
      co.put("longitude", createFloat64(c.longitude()));
      coords[i] = co;
    }
    o.put("coordinates", UBValueFactory.createArray(coords));
    return o;
  }

  private static UBValue owner(OwnerRecord r) {
    UBObject o = UBValueFactory.createObject();
    o.put("uid", createInt(r.uid()));
    o.put("name", createString(r.name()));
    o.put("telephone", createInt(r.telephone()));
    o.put("address", createString(r.address()));
    o.put("licenceNumber", createInt(r.licenceNumber()));
    o.put("idNumber", createInt(r.idNumber()));
    o.put("taxNumber", createInt(r.taxNumber()));
    UBValue[] cars = new UBValue[r.cars().size()];
    for (int i = 0; i < cars.length; i++) {
      OwnerRecord.Car c = r.cars().get(i);
      UBObject co = UBValueFactory.createObject();
      co.put("uid", createInt(c.uid()));
      co.put("brand", createString(c.brand()));
      co.put("model", createString(c.model()));
      co.put("bodyType", createString(c.bodyType()));
      co.put("approval", createString(c.approval()));
      co.put("chassis", createString(c.chassis()));
      co.put("tyreSize", createString(c.tyreSize()));
      co.put("weight", createInt(c.weight()));
      co.put("fuel", createString(c.fuel()));
      co.put("seats", createInt(c.seats()));
      co.put("noise", createInt(c.noise()));
      co.put("co2Emissions", createFloat64(c.co2Emissions()));
      co.put("engineSize", createInt(c.engineSize()));
      co.put("power", createInt(c.power()));
      co.put("color", createString(c.color()));
      co.put("consumption", createFloat64(c.consumption()));
      co.put("plate", createString(c.plate()));
      co.put("date", createString(c.date()));
      cars[i] = co;
    }
    o.put("cars", UBValueFactory.createArray(cars));
    return o;
  }

  private static UBValue doc(DocRecord r) {
    UBObject o = UBValueFactory.createObject();
    o.put("name", createString(r.name()));
    UBObject employee = UBValueFactory.createObject();
    employee.put("name", createString(r.department().employee().name()));
    employee.put("surname", createString(r.department().employee().surname()));
    employee.put("code", createString(r.department().employee().code()));
    UBObject department = UBValueFactory.createObject();
    department.put("code", createString(r.department().code()));
    department.put("time", createInt(r.department().time()));
    department.put("employee", employee);
    o.put("department", department);
    UBObject price = UBValueFactory.createObject();
    price.put("categoryA", createString(r.price().categoryA()));
    price.put("categoryB", createString(r.price().categoryB()));
    price.put("categoryC", createString(r.price().categoryC()));
    o.put("price", price);
    UBObject owner = UBValueFactory.createObject();
    owner.put("uuid", createString(r.owner().uuid()));
    owner.put("secret", createString(r.owner().secret()));
    o.put("owner", owner);
    UBObject transaction = UBValueFactory.createObject();
    transaction.put("type", createString(r.data().transaction().type()));
    transaction.put("uuid", createString(r.data().transaction().uuid()));
    transaction.put("pointCode", createString(r.data().transaction().pointCode()));
    UBObject data = UBValueFactory.createObject();
    data.put("transaction", transaction);
    o.put("data", data);
    DocRecord.Address a = r.delivery().address();
    UBObject address = UBValueFactory.createObject();
    address.put("code", createString(a.code()));
    address.put("country", createString(a.country()));
    address.put("street", createString(a.street()));
    address.put("apartment", createString(a.apartment()));
    UBObject delivery = UBValueFactory.createObject();
    delivery.put("company", createString(r.delivery().company()));
    delivery.put("address", address);
    o.put("delivery", delivery);
    UBValue[] goods = new UBValue[r.goods().size()];
    for (int i = 0; i < goods.length; i++) {
      DocRecord.Good g = r.goods().get(i);
      UBObject go = UBValueFactory.createObject();
      go.put("name", createString(g.name()));
      go.put("amount", createInt(g.amount()));
      go.put("code", createString(g.code()));
      goods[i] = go;
    }
    o.put("goods", UBValueFactory.createArray(goods));
    return o;
  }

  private static UBValue beer(BeerRecord r) {
    UBObject o = UBValueFactory.createObject();
    o.put("alcohol", createFloat64(r.alcohol()));
    o.put("name", createString(r.name()));
    o.put("brewedBy", createString(r.brewedBy()));
    o.put("style", createString(r.style()));
    o.put("availability", createString(r.availability()));
    o.put("serving", createString(r.serving()));
    o.put("details", createString(r.details()));
    return o;
  }

  /** A list of strings as the library's strongly typed string array ({@code [$S#n}). */
  private static UBValue strings(List<String> list) {
    return UBValueFactory.createArray(list.toArray(new String[0]));
  }

  // ---- tree -> native model -------------------------------------------------------------------

  private static DummyRecord dummy(UBValue v) {
    UBObject o = object(v, "record");
    UBArray fa = array(o, "friends");
    List<DummyRecord.Friend> friends = new ArrayList<>(fa.size());
    for (int i = 0; i < fa.size(); i++) {
      UBObject f = object(fa.get(i), "friends[" + i + "]");
      friends.add(new DummyRecord.Friend(i32(f, "id"), str(f, "name")));
    }
    return new DummyRecord(str(o, "_id"), i32(o, "index"), str(o, "guid"), bool(o, "isActive"),
        f64(o, "balance"), str(o, "picture"), i32(o, "age"), str(o, "eyeColor"), str(o, "name"),
        str(o, "gender"), str(o, "company"), str(o, "email"), str(o, "phone"), str(o, "address"),
        str(o, "about"), str(o, "registered"), f64(o, "latitude"), f64(o, "longitude"),
        strings(field(o, "tags"), "tags"), friends, str(o, "greeting"), str(o, "favoriteFruit"));
  }

  private static NumericRecord numeric(UBValue v) {
    UBObject o = object(v, "record");
    UBArray ca = array(o, "coordinates");
    List<NumericRecord.Coordinate> coords = new ArrayList<>(ca.size());
    for (int i = 0; i < ca.size(); i++) {
      UBObject c = object(ca.get(i), "coordinates[" + i + "]");
      coords.add(new NumericRecord.Coordinate(i64(c, "timestamp"), f64(c, "latitude"), f64(c, "longitude")));
    }
    return new NumericRecord(str(o, "_id"), i32(o, "index"), i32(o, "numbr"), coords);
  }

  private static OwnerRecord owner(UBValue v) {
    UBObject o = object(v, "record");
    UBArray ca = array(o, "cars");
    List<OwnerRecord.Car> cars = new ArrayList<>(ca.size());
    for (int i = 0; i < ca.size(); i++) {
      UBObject c = object(ca.get(i), "cars[" + i + "]");
      cars.add(new OwnerRecord.Car(i32(c, "uid"), str(c, "brand"), str(c, "model"), str(c, "bodyType"),
          str(c, "approval"), str(c, "chassis"), str(c, "tyreSize"), i32(c, "weight"), str(c, "fuel"),
          i32(c, "seats"), i32(c, "noise"), f64(c, "co2Emissions"), i32(c, "engineSize"), i32(c, "power"),
          str(c, "color"), f64(c, "consumption"), str(c, "plate"), str(c, "date")));
    }
    return new OwnerRecord(i32(o, "uid"), str(o, "name"), i64(o, "telephone"), str(o, "address"),
        i32(o, "licenceNumber"), i32(o, "idNumber"), i32(o, "taxNumber"), cars);
  }

  private static DocRecord doc(UBValue v) {
    UBObject o = object(v, "record");
    UBObject d = object(field(o, "department"), "department");
    UBObject e = object(field(d, "employee"), "employee");
    UBObject p = object(field(o, "price"), "price");
    UBObject ow = object(field(o, "owner"), "owner");
    UBObject t = object(field(object(field(o, "data"), "data"), "transaction"), "transaction");
    UBObject dl = object(field(o, "delivery"), "delivery");
    UBObject a = object(field(dl, "address"), "address");
    UBArray ga = array(o, "goods");
    List<DocRecord.Good> goods = new ArrayList<>(ga.size());
    for (int i = 0; i < ga.size(); i++) {
      UBObject g = object(ga.get(i), "goods[" + i + "]");
      goods.add(new DocRecord.Good(str(g, "name"), i32(g, "amount"), str(g, "code")));
    }
    return new DocRecord(str(o, "name"),
        new DocRecord.Department(str(d, "code"), i64(d, "time"),
            new DocRecord.Employee(str(e, "name"), str(e, "surname"), str(e, "code"))),
        new DocRecord.Price(str(p, "categoryA"), str(p, "categoryB"), str(p, "categoryC")),
        new DocRecord.Owner(str(ow, "uuid"), str(ow, "secret")),
        new DocRecord.Data(new DocRecord.Transaction(str(t, "type"), str(t, "uuid"), str(t, "pointCode"))),
        new DocRecord.Delivery(str(dl, "company"),
            new DocRecord.Address(str(a, "code"), str(a, "country"), str(a, "street"), str(a, "apartment"))),
        goods);
  }

  private static BeerRecord beer(UBValue v) {
    UBObject o = object(v, "record");
    return new BeerRecord(f64(o, "alcohol"), str(o, "name"), str(o, "brewedBy"), str(o, "style"),
        str(o, "availability"), str(o, "serving"), str(o, "details"));
  }

  private static List<String> strings(UBValue v, String what) {
    if (v == null || !v.isArray()) {
      throw new ShapeException(what + " is " + kind(v) + ", not an array of strings");
    }
    UBArray a = v.asArray();
    int n = a.size();
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(text(a.get(i), what + "[" + i + "]"));
    }
    return out;
  }

  // ---- strict accessors -----------------------------------------------------------------------

  private static UBObject object(UBValue v, String what) {
    if (v == null || !v.isObject()) {
      throw new ShapeException(what + " is " + kind(v) + ", not an object");
    }
    return v.asObject();
  }

  private static UBValue field(UBObject o, String key) {
    UBValue v = o.get(key);
    if (v == null) {
      throw new ShapeException("no field '" + key + "'");
    }
    return v;
  }

  private static UBArray array(UBObject o, String key) {
    UBValue v = field(o, key);
    if (!v.isArray()) {
      throw new ShapeException("field '" + key + "' is " + kind(v) + ", not an array");
    }
    return v.asArray();
  }

  private static String str(UBObject o, String key) {
    return text(field(o, key), "field '" + key + "'");
  }

  /** A string; Draft 12's char (C) is a one-character string. */
  private static String text(UBValue v, String what) {
    if (v != null && v.isString()) {
      return v.asString();
    }
    if (v != null && v.isChar()) {
      return String.valueOf(v.asChar());
    }
    throw new ShapeException(what + " is " + kind(v) + ", not a string");
  }

  private static boolean bool(UBObject o, String key) {
    UBValue v = field(o, key);
    if (!v.isBool()) {
      throw new ShapeException("field '" + key + "' is " + kind(v) + ", not a boolean");
    }
    return v.asBool();
  }

  private static long i64(UBObject o, String key) {
    UBValue v = field(o, key);
    if (!v.isInteger()) {
      throw new ShapeException("field '" + key + "' is " + kind(v) + ", not an integer");
    }
    return v.asLong();
  }

  private static int i32(UBObject o, String key) {
    long v = i64(o, key);
    if (v != (int) v) {
      throw new ShapeException("field '" + key + "' is " + v + ", out of int32 range");
    }
    return (int) v;
  }

  /** Any number: float64 as it is, float32 and integers widened exactly. */
  private static double f64(UBObject o, String key) {
    UBValue v = field(o, key);
    if (!v.isNumber()) {
      throw new ShapeException("field '" + key + "' is " + kind(v) + ", not a number");
    }
    return switch (v.getType()) {
      case Float64 -> v.asFloat64();
      case Float32 -> v.asFloat32();
      default -> {
        long l = v.asLong();
        double d = l;
        if ((long) d != l) {
          throw new ShapeException("field '" + key + "' is the integer " + l + ", not exactly a double");
        }
        yield d;
      }
    };
  }

  private static String kind(UBValue v) {
    return v == null ? "an unknown marker" : "a " + v.getType();
  }
}
