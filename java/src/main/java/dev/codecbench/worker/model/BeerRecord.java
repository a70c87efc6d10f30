package dev.codecbench.worker.model;

import codecbench.v1.Datasets;

/** beers: one catalogue entry. */
public record BeerRecord(
    double alcohol,
    String name,
    String brewedBy,
    String style,
    String availability,
    String serving,
    String details) {

  public static BeerRecord fromProto(Datasets.BeerRecord p) {
    return new BeerRecord(
        p.getAlcohol(),
        p.getName(),
        p.getBrewedBy(),
        p.getStyle(),
        p.getAvailability(),
        p.getServing(),
        p.getDetails());
  }
}
