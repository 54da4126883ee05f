import BeeHive

extension Hive {
    /// A hive of its own for one test: empty, logging into `recorder`, keeping every diagnostic.
    ///
    /// Tests that use `Hive.shared` share it with every other test of the process (it holds the records of the
    /// loaded images, and can be bootstrapped once); a hive made here is theirs alone, so tests can run in
    /// parallel.
    ///
    /// ```swift
    /// let recorder = LogRecorder()
    /// let hive = Hive.forTesting(isStrict: true, recorder: recorder)
    /// try hive.register(Clock.self) { _ in FixedClock() }
    /// ```
    /// - Parameters:
    ///   - isStrict: Strict mode: duplicates are errors and `register` throws on them.
    ///   - scansLoadedImages: Whether the hive registers the annotation records of the loaded images (with a
    ///     scanner of its own), as the shared hive does.
    ///   - recorder: Where the hive's diagnostics are logged.
    /// - Returns: The hive.
    public static func forTesting(
        isStrict: Bool = false, scansLoadedImages: Bool = false, recorder: LogRecorder = LogRecorder()
    ) -> Hive {
        Hive(
            options: Options(
                isStrict: isStrict, logger: recorder.logger(label: "BeeHive"), scansLoadedImages: scansLoadedImages,
                diagnosticLimit: Int.max))
    }
}
