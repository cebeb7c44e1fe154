//! Finished iterations kept on disk while a run goes, for a process without a database (the `bench` command): its
//! memory then stays flat however long the run, as the server's does by storing each batch. They are read back
//! once, when the report is made. The file is unlinked as soon as it is opened, so nothing is left behind, even
//! when the process is killed.
//!
//! One line per iteration: its ITL histogram as stored in the database (`-` when it has none), a tab, then the
//! iteration as JSON (which escapes tabs and newlines inside strings, so neither can split a line).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};

use crate::model::{IterationRecord, LogHistogram};

/// Iterations written to an unlinked temporary file.
pub struct RecordSpill {
    file: BufWriter<File>,
    count: u64,
}

impl RecordSpill {
    /// A new, empty spill in the system's temporary folder.
    pub fn new() -> io::Result<Self> {
        let path = std::env::temp_dir().join(format!("latency-guard-records-{}", uuid::Uuid::new_v4()));
        let file = File::options().read(true).write(true).create_new(true).open(&path)?;
        std::fs::remove_file(&path)?;
        Ok(Self { file: BufWriter::with_capacity(1 << 16, file), count: 0 })
    }

    /// Appends `record`.
    pub fn push(&mut self, record: &IterationRecord) -> io::Result<()> {
        match &record.itl_gaps {
            Some(gaps) => self.file.write_all(gaps.to_text().as_bytes())?,
            None => self.file.write_all(b"-")?,
        }
        self.file.write_all(b"\t")?;
        serde_json::to_writer(&mut self.file, record)?;
        self.file.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    /// Iterations written so far.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether none was written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Every iteration written, in the order written.
    pub fn read_all(self) -> io::Result<Vec<IterationRecord>> {
        let mut file = self.file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        let corrupt = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut records = Vec::with_capacity(usize::try_from(self.count).unwrap_or(0));
        for line in BufReader::with_capacity(1 << 16, file).lines() {
            let line = line?;
            let (gaps, json) = line.split_once('\t').ok_or_else(|| corrupt("a spilled iteration has no tab".into()))?;
            let mut record: IterationRecord = serde_json::from_str(json).map_err(|e| corrupt(e.to_string()))?;
            record.itl_gaps = match gaps {
                "-" => None,
                text => Some(LogHistogram::parse(text).ok_or_else(|| corrupt(format!("bad ITL histogram {text:?}")))?),
            };
            records.push(record);
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::iteration_record;

    #[test]
    fn iterations_come_back_whole_with_their_itl_histograms() {
        let mut gaps = LogHistogram::default();
        for gap in [0.5, 1.5, 1.5, 40.0] {
            gaps.add(gap);
        }
        let first = IterationRecord {
            prompt: "tab\there, a newline\nthere".into(),
            error: Some("http_500: \"boom\"".into()),
            itl_gaps: Some(gaps),
            ..iteration_record(7, None, 900.0, true)
        };
        let second = iteration_record(8, Some(12.5), 80.0, false);
        let mut spill = RecordSpill::new().unwrap();
        assert!(spill.is_empty());
        spill.push(&first).unwrap();
        spill.push(&second).unwrap();
        assert_eq!(spill.len(), 2);
        assert_eq!(spill.read_all().unwrap(), vec![first, second]);
    }
}
