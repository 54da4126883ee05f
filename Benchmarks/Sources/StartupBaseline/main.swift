import StartupSupport

// The floor of every startup measurement: a Foundation-linked Swift process that registers nothing.
let ready = StartupClock.now()
StartupReport.finish(mechanism: "baseline", expected: 0, readyNanoseconds: ready, registered: 0)
