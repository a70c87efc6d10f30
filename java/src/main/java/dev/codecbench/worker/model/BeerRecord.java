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

  public Datasets.BeerRecord toProto() {
    return Datasets.BeerRecord.newBuilder()
        .setAlcohol(alcohol)
        .setName(name)
        .setBrewedBy(brewedBy)
        .setStyle(style)
        .setAvailability(availability)
        .setServing(serving)
        .setDetails(details)
        .build();
  }

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
