// Resolves each of the 10 annotated services once; exits 0 if all resolve and answer correctly.
import Annotations
import BeeHive
import Services

let hive = Hive.shared
var sum = 0
sum &+= try hive.createService(Service0.self).value()
sum &+= try hive.createService(Service1.self).value()
sum &+= try hive.createService(Service2.self).value()
sum &+= try hive.createService(Service3.self).value()
sum &+= try hive.createService(Service4.self).value()
sum &+= try hive.createService(Service5.self).value()
sum &+= try hive.createService(Service6.self).value()
sum &+= try hive.createService(Service7.self).value()
sum &+= try hive.createService(Service8.self).value()
sum &+= try hive.createService(Service9.self).value()
if sum != 45 { fatalError("services resolved wrongly: sum \(sum)") }
if CommandLine.arguments.contains("--verbose") {
    print("resolved 10 services, sum \(sum), diagnostics \(hive.diagnostics.count)")
}
