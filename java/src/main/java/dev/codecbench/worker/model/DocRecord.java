package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import java.util.List;

/** docs: the nested business document (the latency-sized case). */
public record DocRecord(
    String name,
    Department department,
    Price price,
    Owner owner,
    Data data,
    Delivery delivery,
    List<Good> goods) {

  public record Department(String code, long time, Employee employee) {}

  public record Employee(String name, String surname, String code) {}

  public record Price(String categoryA, String categoryB, String categoryC) {}

  public record Owner(String uuid, String secret) {}

  public record Data(Transaction transaction) {}

  public record Transaction(String type, String uuid, String pointCode) {}

  public record Delivery(String company, Address address) {}

  public record Address(String code, String country, String street, String apartment) {}

  public record Good(String name, int amount, String code) {}

  public Datasets.DocRecord toProto() {
    Datasets.DocRecord.Builder b = Datasets.DocRecord.newBuilder()
        .setName(name)
        .setDepartment(Datasets.DocDepartment.newBuilder()
            .setCode(department.code())
            .setTime(department.time())
            .setEmployee(Datasets.DocEmployee.newBuilder()
                .setName(department.employee().name())
                .setSurname(department.employee().surname())
                .setCode(department.employee().code())))
        .setPrice(Datasets.DocPrice.newBuilder()
            .setCategoryA(price.categoryA())
            .setCategoryB(price.categoryB())
            .setCategoryC(price.categoryC()))
        .setOwner(Datasets.DocOwner.newBuilder().setUuid(owner.uuid()).setSecret(owner.secret()))
        .setData(Datasets.DocData.newBuilder()
            .setTransaction(Datasets.DocTransaction.newBuilder()
                .setType(data.transaction().type())
                .setUuid(data.transaction().uuid())
                .setPointCode(data.transaction().pointCode())))
        .setDelivery(Datasets.DocDelivery.newBuilder()
            .setCompany(delivery.company())
            .setAddress(Datasets.DocAddress.newBuilder()
                .setCode(delivery.address().code())
                .setCountry(delivery.address().country())
                .setStreet(delivery.address().street())
                .setApartment(delivery.address().apartment())));
    for (Good g : goods) {
      b.addGoods(Datasets.DocGood.newBuilder().setName(g.name()).setAmount(g.amount()).setCode(g.code()));
    }
    return b.build();
  }

  public static DocRecord fromProto(Datasets.DocRecord p) {
    Datasets.DocDepartment d = p.getDepartment();
    Datasets.DocEmployee e = d.getEmployee();
    Datasets.DocPrice pr = p.getPrice();
    Datasets.DocTransaction t = p.getData().getTransaction();
    Datasets.DocAddress a = p.getDelivery().getAddress();
    return new DocRecord(
        p.getName(),
        new Department(d.getCode(), d.getTime(), new Employee(e.getName(), e.getSurname(), e.getCode())),
        new Price(pr.getCategoryA(), pr.getCategoryB(), pr.getCategoryC()),
        new Owner(p.getOwner().getUuid(), p.getOwner().getSecret()),
        new Data(new Transaction(t.getType(), t.getUuid(), t.getPointCode())),
        new Delivery(
            p.getDelivery().getCompany(),
            new Address(a.getCode(), a.getCountry(), a.getStreet(), a.getApartment())),
        p.getGoodsList().stream().map(g -> new Good(g.getName(), g.getAmount(), g.getCode())).toList());
  }
}
