package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** dummy: the string-heavy profile. Components are in proto field order (the wire order). */
public record DummyRecord(
    @JsonProperty("_id") String id,
    int index,
    String guid,
    // Explicit: Jackson would otherwise see isActive() as the is-getter of "active".
    @JsonProperty("isActive") boolean isActive,
    double balance,
    String picture,
    int age,
    String eyeColor,
    String name,
    String gender,
    String company,
    String email,
    String phone,
    String address,
    String about,
    String registered,
    double latitude,
    double longitude,
    List<String> tags,
    List<Friend> friends,
    String greeting,
    String favoriteFruit) {

  public record Friend(int id, String name) {}

  public Datasets.DummyRecord toProto() {
    Datasets.DummyRecord.Builder b = Datasets.DummyRecord.newBuilder()
        .setId(id)
        .setIndex(index)
        .setGuid(guid)
        .setIsActive(isActive)
        .setBalance(balance)
        .setPicture(picture)
        .setAge(age)
        .setEyeColor(eyeColor)
        .setName(name)
        .setGender(gender)
        .setCompany(company)
        .setEmail(email)
        .setPhone(phone)
        .setAddress(address)
        .setAbout(about)
        .setRegistered(registered)
        .setLatitude(latitude)
        .setLongitude(longitude)
        .addAllTags(tags);
    for (Friend f : friends) {
      b.addFriends(Datasets.DummyFriend.newBuilder().setId(f.id()).setName(f.name()));
    }
    return b.setGreeting(greeting).setFavoriteFruit(favoriteFruit).build();
  }

  public static DummyRecord fromProto(Datasets.DummyRecord p) {
    return new DummyRecord(
        p.getId(),
        p.getIndex(),
        p.getGuid(),
        p.getIsActive(),
        p.getBalance(),
        p.getPicture(),
        p.getAge(),
        p.getEyeColor(),
        p.getName(),
        p.getGender(),
        p.getCompany(),
        p.getEmail(),
        p.getPhone(),
        p.getAddress(),
        p.getAbout(),
        p.getRegistered(),
        p.getLatitude(),
        p.getLongitude(),
        List.copyOf(p.getTagsList()),
        p.getFriendsList().stream().map(f -> new Friend(f.getId(), f.getName())).toList(),
        p.getGreeting(),
        p.getFavoriteFruit());
  }
}
