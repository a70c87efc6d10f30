//! Runs one task by the worker protocol (proto/README.md): verify before timing, time only the
//! codec call, report every measurement or a precise failure.
use crate::{blobs, measure::{measure, Sample}};
use codecbench_codecs::{self as codecs, Codec, LAZY, TYPED};
use codecbench_datasets::Records;
use codecbench_proto::v1::{
    worker_service_client::WorkerServiceClient, Environment, Measurement, Operation, ReportResultRequest, Task,
};
use std::{collections::HashMap, sync::Arc};
use tonic::transport::Channel;

pub struct Runner {
    pub client: WorkerServiceClient<Channel>,
    pub environment: Environment,
    /// The last canonical dataset, by blob id: consecutive tasks usually share it.
    canonical: Option<(String, Arc<Records>)>,
}

/// A task failure: the message and the measurements taken before it.
struct Failed(String, Vec<Measurement>);

impl Runner {
    pub fn new(client: WorkerServiceClient<Channel>, environment: Environment) -> Self {
        Runner { client, environment, canonical: None }
    }

    pub async fn run(&mut self, worker_id: &str, task: Task) -> ReportResultRequest {
        let mut report = ReportResultRequest { worker_id: worker_id.into(), task_id: task.id.clone(), ..Default::default() };
        let outcome = match task.operation() {
            Operation::Encode => self.encode(&task).await.map(|(m, id, size)| {
                report.payload_blob_id = id;
                report.payload_blob_size = size;
                vec![m]
            }),
            Operation::Decode => self.decode(&task).await,
            other => Err(Failed(format!("unsupported operation {}", other.as_str_name()), vec![])),
        };
        match outcome {
            Ok(m) => report.measurements = m,
            Err(Failed(message, m)) => {
                report.failure = message;
                report.measurements = m;
            }
        }
        report
    }

    async fn canonical(&mut self, task: &Task) -> Result<Arc<Records>, Failed> {
        if let Some((id, r)) = &self.canonical
            && *id == task.canonical_blob_id
        {
            return Ok(r.clone());
        }
        let bytes = blobs::get(&mut self.client, &task.canonical_blob_id)
            .await
            .map_err(|e| Failed(format!("fetching canonical records failed: {e:#}"), vec![]))?;
        let records = Records::from_canonical_bytes(&task.dataset, &bytes).map_err(|e| Failed(e, vec![]))?;
        if records.len() != task.record_count as usize {
            return Err(Failed(format!("canonical blob has {} records, task says {}", records.len(), task.record_count), vec![]));
        }
        let records = Arc::new(records);
        self.canonical = Some((task.canonical_blob_id.clone(), records.clone()));
        Ok(records)
    }

    async fn encode(&mut self, task: &Task) -> Result<(Measurement, String, u64), Failed> {
        let codec = find_codec(&task.codec)?;
        let records = self.canonical(task).await?;
        let sampling = task.sampling.unwrap_or_default();
        let (payload, sample) = tokio::task::spawn_blocking(move || -> Result<_, String> {
            let payload = codec.encode(&records).map_err(|e| format!("encode failed: {e}"))?;
            let back = codec.decode(records.dataset(), &payload).map_err(|e| format!("verification failed: own payload does not decode: {e}"))?;
            verify_typed(&records, &back)?;
            let sample = measure(&sampling, || codec.encode(&records));
            Ok((payload, sample))
        })
        .await
        .map_err(|e| Failed(format!("encode task panicked: {e}"), vec![]))?
        .map_err(|e| Failed(e, vec![]))?;
        let m = self.measurement(Operation::Encode, payload.len(), &sample);
        let id = blobs::put(&mut self.client, &payload).await.map_err(|e| Failed(format!("{e:#}"), vec![m.clone()]))?;
        Ok((m, id, payload.len() as u64))
    }

    async fn decode(&mut self, task: &Task) -> Result<Vec<Measurement>, Failed> {
        let codec = find_codec(&task.codec)?;
        let records = self.canonical(task).await?;
        let sampling = task.sampling.unwrap_or_default();
        let mut measurements = vec![];
        let payload = blobs::get(&mut self.client, &task.payload_blob_id)
            .await
            .map_err(|e| Failed(format!("fetching payload failed: {e:#}"), vec![]))?;
        if task.measure_transfer {
            // Timed on a blocking thread like every other operation; each op fetches the whole blob.
            let (client, id, handle) = (self.client.clone(), task.payload_blob_id.clone(), tokio::runtime::Handle::current());
            let sample = tokio::task::spawn_blocking(move || {
                measure(&sampling, || handle.block_on(blobs::get(&mut client.clone(), &id)).map(|b| b.len()))
            })
            .await
            .map_err(|e| Failed(format!("transfer timing panicked: {e}"), vec![]))?;
            measurements.push(self.measurement(Operation::Transfer, payload.len(), &sample));
        }
        let (mode, field, bytes) = (task.decode_mode.clone(), task.lazy_field.clone(), payload.len());
        let result = tokio::task::spawn_blocking(move || -> Result<Sample, String> {
            let dataset = records.dataset();
            match mode.as_str() {
                TYPED => {
                    let decoded = codec.decode(dataset, &payload).map_err(|e| format!("decode failed: {e}"))?;
                    verify_typed(&records, &decoded)?;
                    drop(decoded);
                    Ok(measure(&sampling, || codec.decode(dataset, &payload)))
                }
                LAZY => {
                    let values = codecs::lazy_values(codec.as_ref(), &payload, &field).map_err(|e| format!("decode failed: {e}"))?;
                    verify_lazy(&records.lazy_values(), &values, &field)?;
                    // The sink: every value read is touched, so the reads cannot be elided.
                    Ok(measure(&sampling, || {
                        let mut sink = 0usize;
                        codec.decode_lazy(&payload, &field, &mut |v| sink += v.len()).map(|()| sink)
                    }))
                }
                other => Err(format!("unknown decode mode {other:?} for codec {}", codec.meta().id)),
            }
        })
        .await
        .map_err(|e| Failed(format!("decode task panicked: {e}"), measurements.clone()))?;
        match result {
            Ok(sample) => {
                measurements.push(self.measurement(Operation::Decode, bytes, &sample));
                Ok(measurements)
            }
            Err(e) => Err(Failed(e, measurements)),
        }
    }

    fn measurement(&self, operation: Operation, payload_bytes: usize, s: &Sample) -> Measurement {
        Measurement {
            operation: operation as i32,
            language: "rust".into(),
            payload_bytes: payload_bytes as u64,
            round_ns_per_op: s.round_ns_per_op.clone(),
            ops_per_round: s.ops_per_round,
            alloc_bytes_per_op: Some(s.alloc_bytes_per_op),
            verified: true,
            environment: Some(self.environment.clone()),
            extras: HashMap::from([("warmup_ms".into(), s.warmup_ms), ("warmup_ops".into(), s.warmup_ops as f64)]),
            ..Default::default()
        }
    }
}

fn find_codec(id: &str) -> Result<Box<dyn Codec>, Failed> {
    codecs::find(id).ok_or_else(|| Failed(format!("this worker has no codec {id:?}"), vec![]))
}

/// Compares decoded records with the canonical ones and names the first difference.
pub fn verify_typed(expected: &Records, got: &Records) -> Result<(), String> {
    if expected == got {
        return Ok(());
    }
    if expected.len() != got.len() || expected.dataset() != got.dataset() {
        return Err(format!("verification failed: expected {} {} records, decoded {} {}", expected.len(), expected.dataset(), got.len(), got.dataset()));
    }
    let diff = first_difference(expected, got).unwrap_or_else(|| "records differ".into());
    Err(format!("verification failed: {diff}"))
}

fn first_difference(a: &Records, b: &Records) -> Option<String> {
    fn find<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> Option<String> {
        let i = a.iter().zip(b).position(|(x, y)| x != y)?;
        let cut = |s: String| s.chars().take(300).collect::<String>();
        Some(format!("record {i}: expected {} but decoded {}", cut(format!("{:?}", a[i])), cut(format!("{:?}", b[i]))))
    }
    match (a, b) {
        (Records::Dummy(a), Records::Dummy(b)) => find(a, b),
        (Records::Numeric(a), Records::Numeric(b)) => find(a, b),
        (Records::Owners(a), Records::Owners(b)) => find(a, b),
        (Records::Docs(a), Records::Docs(b)) => find(a, b),
        (Records::Beers(a), Records::Beers(b)) => find(a, b),
        (Records::Matrix(a), Records::Matrix(b)) => find(a, b),
        _ => None,
    }
}

pub fn verify_lazy(expected: &[String], got: &[String], field: &str) -> Result<(), String> {
    if expected.len() != got.len() {
        return Err(format!("verification failed: expected {} values of {field:?}, read {}", expected.len(), got.len()));
    }
    match expected.iter().zip(got).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!("verification failed: record {i} field {field:?}: expected {:?}, read {:?}", expected[i], got[i])),
    }
}



#[cfg(test)]
mod tests {
    use super::*;
    use codecbench_datasets::generate;

    #[test]
    fn verification_names_the_first_differing_record() {
        let a = generate("beers", 5, 1).unwrap();
        let Records::Beers(mut changed) = a.clone() else { unreachable!() };
        changed[3].alcohol += 0.1;
        let e = verify_typed(&a, &Records::Beers(changed)).unwrap_err();
        assert!(e.starts_with("verification failed: record 3: expected BeerRecord"), "{e}");
        assert!(verify_typed(&a, &a).is_ok());
        let e = verify_lazy(&["x".into(), "y".into()], &["x".into(), "z".into()], "name").unwrap_err();
        assert_eq!(e, "verification failed: record 1 field \"name\": expected \"y\", read \"z\"");
    }
}
