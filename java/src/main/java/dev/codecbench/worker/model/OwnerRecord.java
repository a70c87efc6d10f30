package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import java.util.List;

/** owners: one car owner with four cars; telephone is int64, the other numbers int32. */
public record OwnerRecord(
    int uid,
    String name,
    long telephone,
    String address,
    int licenceNumber,
    int idNumber,
    int taxNumber,
    List<Car> cars) {

  public record Car(
      int uid,
      String brand,
      String model,
      String bodyType,
      String approval,
      String chassis,
      String tyreSize,
      int weight,
      String fuel,
      int seats,
      int noise,
      double co2Emissions,
      int engineSize,
      int power,
      String color,
      double consumption,
      String plate,
      String date) {

    static Car fromProto(Datasets.OwnerCar c) {
      return new Car(
          c.getUid(),
          c.getBrand(),
          c.getModel(),
          c.getBodyType(),
          c.getApproval(),
          c.getChassis(),
          c.getTyreSize(),
          c.getWeight(),
          c.getFuel(),
          c.getSeats(),
          c.getNoise(),
          c.getCo2Emissions(),
          c.getEngineSize(),
          c.getPower(),
          c.getColor(),
          c.getConsumption(),
          c.getPlate(),
          c.getDate());
    }
  }

  public static OwnerRecord fromProto(Datasets.OwnerRecord p) {
    return new OwnerRecord(
        p.getUid(),
        p.getName(),
        p.getTelephone(),
        p.getAddress(),
        p.getLicenceNumber(),
        p.getIdNumber(),
        p.getTaxNumber(),
        p.getCarsList().stream().map(Car::fromProto).toList());
  }
}
