package dev.codecbench.worker.model;

import codecbench.v1.Datasets;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.google.protobuf.Descriptors.FileDescriptor;
import dev.codecbench.worker.dataset.Binding;
import java.util.List;

/**
 * The proto files whose datasets the worker carries, and the binding of each record message to
 * its hand-written model class (keyed by the record's descriptor; the ids and lazy fields come
 * from the {@code (dataset)} option).
 */
public final class Models {
  private static final TypeFactory TYPES = TypeFactory.defaultInstance();

  public static final List<FileDescriptor> FILES = List.of(Datasets.getDescriptor());

  public static final List<Binding<?, ?, ?>> BINDINGS = List.of(
      new Binding<>(Datasets.DummyRecord.getDescriptor(), TYPES.constructType(DummyRecord.class),
          Datasets.DummyDataset.parser(), Datasets.DummyDataset::getRecordsList,
          l -> Datasets.DummyDataset.newBuilder().addAllRecords(l).build(), DummyRecord::fromProto,
          DummyRecord::toProto),
      new Binding<>(Datasets.NumericRecord.getDescriptor(), TYPES.constructType(NumericRecord.class),
          Datasets.NumericDataset.parser(), Datasets.NumericDataset::getRecordsList,
          l -> Datasets.NumericDataset.newBuilder().addAllRecords(l).build(), NumericRecord::fromProto,
          NumericRecord::toProto),
      new Binding<>(Datasets.OwnerRecord.getDescriptor(), TYPES.constructType(OwnerRecord.class),
          Datasets.OwnersDataset.parser(), Datasets.OwnersDataset::getRecordsList,
          l -> Datasets.OwnersDataset.newBuilder().addAllRecords(l).build(), OwnerRecord::fromProto,
          OwnerRecord::toProto),
      new Binding<>(Datasets.DocRecord.getDescriptor(), TYPES.constructType(DocRecord.class),
          Datasets.DocsDataset.parser(), Datasets.DocsDataset::getRecordsList,
          l -> Datasets.DocsDataset.newBuilder().addAllRecords(l).build(), DocRecord::fromProto,
          DocRecord::toProto),
      new Binding<>(Datasets.BeerRecord.getDescriptor(), TYPES.constructType(BeerRecord.class),
          Datasets.BeersDataset.parser(), Datasets.BeersDataset::getRecordsList,
          l -> Datasets.BeersDataset.newBuilder().addAllRecords(l).build(), BeerRecord::fromProto,
          BeerRecord::toProto),
      new Binding<>(Datasets.MatrixRow.getDescriptor(), TYPES.constructCollectionType(List.class, String.class),
          Datasets.MatrixDataset.parser(), Datasets.MatrixDataset::getRecordsList,
          l -> Datasets.MatrixDataset.newBuilder().addAllRecords(l).build(), MatrixRow::fromProto,
          MatrixRow::toProto));

  private Models() {}
}
