package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import java.util.List;

/**
 * matrix: a record is one row of decimal strings. The native record is a plain {@code
 * List<String>} so that every codec writes it as a plain array, not an object.
 */
public final class MatrixRow {
  private MatrixRow() {}

  public static Datasets.MatrixRow toProto(List<String> row) {
    return Datasets.MatrixRow.newBuilder().addAllCells(row).build();
  }

  public static List<String> fromProto(Datasets.MatrixRow p) {
    return List.copyOf(p.getCellsList());
  }
}
