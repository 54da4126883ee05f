@_spi(Testing) internal import _BeeHiveDiscovery

// The scan of loaded images, from the top: the scanner's batch, ingested (`ingest(_:)`, in `Plugins/`: its records
// registered and the images being loaded as plugins joined), its problems logged.
extension Hive {
    /// Registers the annotation records of images loaded since the last scan, e.g. plugins opened with `dlopen`.
    ///
    /// Each image is scanned once. When no image was loaded or unloaded since the last scan, this
    /// returns at once (glibc counts loads and unloads). Registrations of an image that was
    /// unloaded are withdrawn, with a warning.
    ///
    /// ```swift
    /// dlopen("/opt/app/plugins/libPayments.so", RTLD_NOW)
    /// Hive.shared.rescan()
    /// ```
    /// - Returns: What the scan added. Empty for a hive that does not scan loaded images.
    ///
    /// When it returns, everything the images loaded before the call declare is registered, even if another
    /// thread's rescan took part of the work. Diagnostics are logged after every lock is released.
    @discardableResult
    public func rescan() -> ScanReport {
        guard let scanner else { return ScanReport() }
        let (report, problems) = scanning.withLock { count in
            count += 1
            return ingest(scanRecorded(scanner))
        }
        log(problems)
        return report
    }

    /// Counters of the scanner behind this hive: images seen, opened, time spent. Nil for a hive that
    /// does not scan loaded images.
    public var scanStatistics: ImageScanStatistics? {
        scanner.map { ImageScanStatistics($0.statistics) }
    }
}
