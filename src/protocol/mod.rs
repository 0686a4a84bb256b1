//! AG-UI and AGORA wire types, the sequence verifier and JSON Patch state.
//! Pure data: serde only, so it builds for wasm32 (the UI) and natively (the server).
