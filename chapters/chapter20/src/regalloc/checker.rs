//! The independent checker of an allocation (to be written).
