// An image of record format 2 as BeeHive's Swift macros wrote it before format 3, the expansion written out (the
// tests build it with `swiftc -emit-library`; it needs no BeeHive): per annotation, a JSON record as a `@section`
// global of bytes in the default section of its kind, and a version-2 image note naming the four default sections.
// The macros also wrote a typed record into beehive_types, whose accessor called into BeeHive: left out here (its
// services resolve by name, as without typed records). Such an image is read through its file, with libelf.
//
// The records (their `file` and `line` stand for an annotated source that is not here):
//   {"service":"SwiftTwo.Clock","impl":"SwiftTwo.SystemClock","file":"SwiftTwo/Records.swift","line":24}
//   {"module":"SwiftTwo.StartModule","file":"SwiftTwo/Records.swift","line":28}

// @BeeHiveService(Clock.self) on SystemClock
@section("beehive_services") @used
let serviceRecord: InlineArray<101, UInt8> =
    [
        123, 34, 115, 101, 114, 118, 105, 99, 101, 34, 58, 34, 83, 119, 105, 102, 116, 84, 119, 111, 46, 67, 108, 111,
        99, 107, 34, 44, 34, 105, 109, 112, 108, 34, 58, 34, 83, 119, 105, 102, 116, 84, 119, 111, 46, 83, 121, 115,
        116, 101, 109, 67, 108, 111, 99, 107, 34, 44, 34, 102, 105, 108, 101, 34, 58, 34, 83, 119, 105, 102, 116, 84,
        119, 111, 47, 82, 101, 99, 111, 114, 100, 115, 46, 115, 119, 105, 102, 116, 34, 44, 34, 108, 105, 110, 101, 34,
        58, 50, 52, 125, 0,
    ]

@section(".note.beehive") @used
let serviceNote: InlineArray<29, UInt32> =
    [
        8, 93, 1, 1214604610, 6649449, 2, 1987208563, 1936024425, 1701143101, 1702259048, 1919251295, 1701013878,
        1869414515, 1701606756, 1700937075, 1986619493, 1869438821, 1912632164, 1702131055, 1700937075, 1986619493,
        1869766501, 1936028789, 1887007744, 1648194405, 1768449381, 1952408950, 1936027769, 0,
    ]

// @BeeHiveMod on StartModule
@section("beehive_mods") @used
let moduleRecord: InlineArray<76, UInt8> =
    [
        123, 34, 109, 111, 100, 117, 108, 101, 34, 58, 34, 83, 119, 105, 102, 116, 84, 119, 111, 46, 83, 116, 97, 114,
        116, 77, 111, 100, 117, 108, 101, 34, 44, 34, 102, 105, 108, 101, 34, 58, 34, 83, 119, 105, 102, 116, 84, 119,
        111, 47, 82, 101, 99, 111, 114, 100, 115, 46, 115, 119, 105, 102, 116, 34, 44, 34, 108, 105, 110, 101, 34, 58,
        50, 56, 125, 0,
    ]

@section(".note.beehive") @used
let moduleNote: InlineArray<29, UInt32> =
    [
        8, 93, 1, 1214604610, 6649449, 2, 1987208563, 1936024425, 1701143101, 1702259048, 1919251295, 1701013878,
        1869414515, 1701606756, 1700937075, 1986619493, 1869438821, 1912632164, 1702131055, 1700937075, 1986619493,
        1869766501, 1936028789, 1887007744, 1648194405, 1768449381, 1952408950, 1936027769, 0,
    ]
