//! Starts one process per PE on this machine and supervises them.
