import BeeHive

public protocol Service0: AnyObject { func value() -> Int }
public final class Service0Impl: Service0, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 0 }
}

public protocol Service1: AnyObject { func value() -> Int }
public final class Service1Impl: Service1, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 1 }
}

public protocol Service2: AnyObject { func value() -> Int }
public final class Service2Impl: Service2, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 2 }
}

public protocol Service3: AnyObject { func value() -> Int }
public final class Service3Impl: Service3, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 3 }
}

public protocol Service4: AnyObject { func value() -> Int }
public final class Service4Impl: Service4, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 4 }
}

public protocol Service5: AnyObject { func value() -> Int }
public final class Service5Impl: Service5, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 5 }
}

public protocol Service6: AnyObject { func value() -> Int }
public final class Service6Impl: Service6, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 6 }
}

public protocol Service7: AnyObject { func value() -> Int }
public final class Service7Impl: Service7, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 7 }
}

public protocol Service8: AnyObject { func value() -> Int }
public final class Service8Impl: Service8, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 8 }
}

public protocol Service9: AnyObject { func value() -> Int }
public final class Service9Impl: Service9, ServiceImplementation {
    public static var isSingleton: Bool { true }
    public init() {}
    public func value() -> Int { 9 }
}
