//! Connectors: their settings as typed, validated and shown, their extra headers, the connection test.

pub(in crate::model) mod connection_test;
pub(in crate::model) mod headers;
pub(in crate::model) mod settings;

pub use connection_test::{ConnectionTestResult, TestTarget, BODY_PREVIEW_CHARS};
pub use headers::{is_credential_header, is_credential_query_name, HeaderName, HeaderSet, HeaderValueChange};
pub use settings::{
    credentials_kept_for, BaseUrl, Connector, ConnectorInput, HeaderView, KeyChange, ModelName, Price, ValidConnector,
};
