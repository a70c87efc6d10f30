package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** numeric: the number-heavy record; timestamps are int64 (they do not fit an int32). */
public record NumericRecord(
    @JsonProperty("_id") String id, int index, int numbr, List<Coordinate> coordinates) {

  public record Coordinate(long timestamp, double latitude, double longitude) {}

  public Datasets.NumericRecord toProto() {
    Datasets.NumericRecord.Builder b =
        Datasets.NumericRecord.newBuilder().setId(id).setIndex(index).setNumbr(numbr);
    for (Coordinate c : coordinates) {
      b.addCoordinates(Datasets.NumericCoordinate.newBuilder()
          .setTimestamp(c.timestamp()).setLatitude(c.latitude()).setLongitude(c.longitude()));
    }
    return b.build();
  }

  public static NumericRecord fromProto(Datasets.NumericRecord p) {
    return new NumericRecord(
        p.getId(),
        p.getIndex(),
        p.getNumbr(),
        p.getCoordinatesList().stream()
            .map(c -> new Coordinate(c.getTimestamp(), c.getLatitude(), c.getLongitude()))
            .toList());
  }
}
