package runner

// MaxOutput is the ceiling of a run's output in bytes (Request.MaxBytes when not set): the
// newest bytes are kept, and a client's result stays within what it can read.
const MaxOutput = 1_000_000
