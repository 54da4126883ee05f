/// The version of `Service`'s API that code compiled here was built against, for protocols that declare none: `""`.
///
/// `@BeeHiveAPI("2.1.0")` on a protocol `P` declares an overload `_beeHiveAPIVersion(_: (any P).Type)` beside it,
/// emitted into every client, which overload resolution prefers to this one: so a `@BeeHiveService(P.self)` record
/// says which version of `P` its code was compiled against (`beehive-api:Module.P@2.1.0`), in its accessor and, as the
/// text lands in the client's read-only data, in its file for the `beehive` tool. Written by the macros; not for direct
/// use.
@_alwaysEmitIntoClient
public func _beeHiveAPIVersion<Service>(_: Service.Type) -> StaticString { "" }
