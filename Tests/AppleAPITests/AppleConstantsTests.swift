// Every numeric constant of Apple's CoreAudioTypes, AudioToolbox and AudioUnit headers (Data/apple-audio-
// constants.txt: 1 652 names and the values Apple's SDK gives them) is declared by COpenAudioToolbox with
// that value: a C program including our headers compares each, compiled by the toolchain's clang and run.
// A constant missing fails to compile; one with another value is printed. Spot checks in Swift follow, for
// the types Swift gives them (what a port's code compares against).
import Foundation
import OpenAudioToolbox
import Testing
import TestSupport

struct AppleConstantsTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test func everyAppleConstantIsDeclaredWithApplesValue() async throws {
        let listed = try String(contentsOf: Self.folder.appendingPathComponent("Data/apple-audio-constants.txt"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").map(String.init) }
        #expect(listed.count == 1_652 && listed.allSatisfy { $0.count == 3 && Int64($0[2]) != nil })
        let headers = Self.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/COpenAudioToolbox")
        let includes = try FileManager.default.contentsOfDirectory(atPath: headers.path).filter { $0.hasSuffix(".h") }.sorted()
        var program = includes.map { "#include \"\($0)\"\n" }.joined() + "#include <stdio.h>\nint main(void) {\n    int wrong = 0;\n"
        for entry in listed {
            program += "    if ((long long)(\(entry[1])) != \(entry[2])LL) { printf(\"%s %lld, Apple's \(entry[2])\\n\", \"\(entry[1])\", "
                + "(long long)(\(entry[1]))); wrong++; }\n"
        }
        program += "    printf(\"checked %d, wrong %d\\n\", \(listed.count), wrong);\n    return wrong != 0;\n}\n"
        let directory = try temporaryDirectory()
        try program.write(toFile: directory + "/constants.c", atomically: true, encoding: .utf8)
        let compiled = try await offThread {
            try runProcess("clang", ["-std=gnu11", "-Wno-everything", "-I", headers.path, directory + "/constants.c", "-o", directory + "/constants"])
        }
        #expect(compiled.status == 0, "\(compiled.stderr.prefix(3_000))")
        guard compiled.status == 0 else { return }
        let ran = try await offThread { try runProcess(directory + "/constants", []) }
        #expect(ran.status == 0 && ran.stdout.hasSuffix("checked 1652, wrong 0\n"), "\(ran.stdout)")
    }

    /// What ports compare against, with the Swift types Apple's headers give them.
    @Test func theTypesSwiftSeesAreApples() {
        let amr: AudioFormatID = kAudioFormatAMR
        #expect(amr == 0x7361_6D72)  // 'samr'
        let stereo: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
        #expect(stereo == (101 << 16) | 2)
        #expect(AudioChannelLayoutTag_GetNumberOfChannels(stereo) == 2
                && AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_AudioUnit_7_1) == 8)
        #expect(kAudioChannelLayoutTag_MPEG_5_1_A == (121 << 16) | 6)
        #expect(kAudioFilePropertyIsOptimized == 0x6F70_746D)  // 'optm'
        #expect(kLinearPCMFormatFlagsSampleFractionShift == 7 && kLinearPCMFormatFlagsSampleFractionMask == 0x1F80)
        #expect(kAudioUnitSubType_AUiPodTimeOther == 0x6970_746F)  // 'ipto'
        let vibrate: SystemSoundID = kSystemSoundID_Vibrate
        #expect(vibrate == 0xFFF)
    }
}
