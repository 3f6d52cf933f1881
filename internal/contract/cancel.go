package contract

// ErrCancelled is the failure type of an operation that `slipway cancel` (or a teardown asked
// for meanwhile, PreTerminate) stopped at a safe point.
const ErrCancelled = "Cancelled"

// LeftoverCancelled names where a cancelled operation stopped and what it had done by then.
const LeftoverCancelled = "cancelled"
