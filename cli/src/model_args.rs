//! Model flags shared by `ask`, `eval`, `verify --judge` and `ingest --extract llm`
//! (SPEC §6), and building backends from them.
