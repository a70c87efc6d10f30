//! The one contract (`proto/codecbench/v1`), generated. Never edit generated code: change the
//! .proto files.
pub mod v1 {
    tonic::include_proto!("codecbench.v1");
}

/// Encoded `FileDescriptorSet` of the contract, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("codecbench_descriptor");
