//! The gateway. For now: the node that assembles the durable core.
