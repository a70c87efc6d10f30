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

    Datasets.OwnerCar toProto() {
      return Datasets.OwnerCar.newBuilder()
          .setUid(uid)
          .setBrand(brand)
          .setModel(model)
          .setBodyType(bodyType)
          .setApproval(approval)
          .setChassis(chassis)
          .setTyreSize(tyreSize)
          .setWeight(weight)
          .setFuel(fuel)
          .setSeats(seats)
          .setNoise(noise)
          .setCo2Emissions(co2Emissions)
          .setEngineSize(engineSize)
          .setPower(power)
          .setColor(color)
          .setConsumption(consumption)
          .setPlate(plate)
          .setDate(date)
          .build();
    }

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

  public Datasets.OwnerRecord toProto() {
    Datasets.OwnerRecord.Builder b = Datasets.OwnerRecord.newBuilder()
        .setUid(uid)
        .setName(name)
        .setTelephone(telephone)
        .setAddress(address)
        .setLicenceNumber(licenceNumber)
        .setIdNumber(idNumber)
        .setTaxNumber(taxNumber);
    for (Car c : cars) {
      b.addCars(c.toProto());
    }
    return b.build();
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
