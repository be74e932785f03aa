//! Parquet I/O for segment rows (being written).
