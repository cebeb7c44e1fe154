//! `Checked<T>`: a request argument whose decoding errors name the offending field (`name: invalid type: …`)
//! instead of only a line and column, so API callers learn which field to fix.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};

/// `T`, decoded with the path of any failing field in the error. Same JSON shape as `T`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Checked<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        serde_path_to_error::deserialize(value)
            .map(Checked)
            .map_err(|e| D::Error::custom(format!("{}: {}", e.path(), e.inner())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ConnectorInput;

    #[test]
    fn names_the_field_with_the_wrong_type() {
        let err =
            serde_json::from_str::<Checked<ConnectorInput>>(r#"{"name": 5, "baseUrl": "http://h", "model": "m"}"#)
                .unwrap_err()
                .to_string();
        assert!(err.starts_with("name: invalid type"), "{err}");
        let err = serde_json::from_str::<Checked<ConnectorInput>>(
            r#"{"name": "n", "baseUrl": "http://h", "model": "m", "headers": {"a": 1}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("headers.a: invalid type"), "{err}");
    }

    #[test]
    fn decodes_like_the_inner_type() {
        let checked: Checked<ConnectorInput> =
            serde_json::from_str(r#"{"name": "n", "baseUrl": "http://h", "model": "m"}"#).unwrap();
        assert_eq!(checked.0.name, "n");
    }
}
