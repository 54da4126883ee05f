import Benchmark
import BeeHive
import Swinject

let benchmarks: @Sendable () -> Void = {
    Benchmark("noop") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(Hive()) }
    }
}
