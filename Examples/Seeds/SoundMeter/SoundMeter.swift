// Seed 002 (a microphone level gauge: EZMicrophone, SCAudioMeter, a radial gauge with dB zones), its audio on
// AVAudioEngine's input node and a tap, compiled against OpenAVFAudio. Beside the import line it differs
// from the Swift that builds against Apple's AVFoundation only in the UI it draws: the gauge prints its
// value and zone, and the meter's timer is written with a block (Timer's selector form needs the
// Objective-C runtime; the block form is on both).
//
// What it does: the input node's tap sums the squares of channel 0; every 0.1 s the mean square becomes
// 10·log10 of its square root (the document's dB) and the gauge shows it in its zone (green below −15,
// yellow to −8, orange to −2, red to 0). Runs 5 s.
//
// Run: seed-soundmeter (PULSE_SOURCE chooses the source).

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

// MARK: - EZMicrophone stand-in (AVAudioEngine input tap)

protocol MicrophoneDelegate: AnyObject {
    /// Mirrors EZMicrophoneDelegate's
    /// -microphone:hasAudioReceived:withBufferSize:withNumberOfChannels:
    func microphone(_ microphone: Microphone,
                    hasAudioReceived buffer: UnsafePointer<UnsafeMutablePointer<Float>>,
                    withBufferSize bufferSize: UInt32,
                    withNumberOfChannels numberOfChannels: UInt32)
}

final class Microphone: @unchecked Sendable {
    private let engine = AVAudioEngine()
    weak var delegate: (any MicrophoneDelegate)?

    /// EZMicrophone +microphoneWithDelegate:
    init(delegate: any MicrophoneDelegate) {
        self.delegate = delegate
    }

    func startFetchingAudio() {
        #if os(iOS)
        do {
            let session = AVAudioSession.sharedInstance()
            try session.setCategory(.playAndRecord, mode: .default, options: [])
            try session.setActive(true, options: [])
        } catch {
            print("AVAudioSession error: \(error)")
        }
        #endif

        let inputNode = engine.inputNode
        let format = inputNode.outputFormat(forBus: 0)
        inputNode.installTap(onBus: 0, bufferSize: 1024, format: format) { @Sendable [weak self] buffer, _ in
            // Audio thread.
            guard let self, let channelData = buffer.floatChannelData else { return }
            self.delegate?.microphone(self,
                                      hasAudioReceived: channelData,
                                      withBufferSize: buffer.frameLength,
                                      withNumberOfChannels: buffer.format.channelCount)
        }
        engine.prepare()
        do {
            try engine.start()
        } catch {
            print("AVAudioEngine failed to start: \(error)")
        }
    }

    func stopFetchingAudio() {
        engine.inputNode.removeTap(onBus: 0)
        engine.stop()
    }
}

// MARK: - SCAudioMeter

final class SCAudioMeter: NSObject, MicrophoneDelegate, @unchecked Sendable {
    typealias MeasurementCallback = @MainActor @Sendable (Double) -> Void

    private var measurementCallback: MeasurementCallback?
    private(set) var microphone: Microphone!

    private weak var timer: Timer?
    private let period: TimeInterval

    // Only touched on sampleProcessingQueue (after beginAudioMetering).
    private var runningSumSquares: Double = 0
    private var numberSamples: Int = 0

    private let sampleProcessingQueue: DispatchQueue

    init(samplePeriod: TimeInterval) {
        self.period = samplePeriod
        self.sampleProcessingQueue = DispatchQueue(label: "com.shinobicontrols.gauges.soundmeter.processqueue")
        super.init()
        self.microphone = Microphone(delegate: self)
    }

    func beginAudioMetering(callback: @escaping MeasurementCallback) {
        self.measurementCallback = callback

        // Start with sensible values
        self.runningSumSquares = 0
        self.numberSamples = 0

        self.microphone.startFetchingAudio()
        self.timer = Timer.scheduledTimer(withTimeInterval: self.period, repeats: true) { [weak self] _ in
            self?.handleTimerFired()
        }
    }

    func handleTimerFired() {
        // Need the sample processing to happen on the queue
        sampleProcessingQueue.async {
            // Calculate this period's value and push it back on the main thread
            let mean = self.runningSumSquares / Double(self.numberSamples)
            let rms = sqrt(mean)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    // Return the value
                    self.measurementCallback?(rms)
                }
            }
            // Reset for the next period
            self.runningSumSquares = 0
            self.numberSamples = 0
        }
    }

    // MARK: MicrophoneDelegate (EZMicrophoneDelegate)

    func microphone(_ microphone: Microphone,
                    hasAudioReceived buffer: UnsafePointer<UnsafeMutablePointer<Float>>,
                    withBufferSize bufferSize: UInt32,
                    withNumberOfChannels numberOfChannels: UInt32) {
        // We'll just use the first channel
        let dataPoints = buffer[0]
        // Calculate sum of squares
        var sumSquares: Double = 0
        var currentDP = dataPoints
        for _ in 0..<bufferSize {
            sumSquares += Double(currentDP.pointee * currentDP.pointee)
            currentDP += 1
        }

        // Add it to the running total
        let bufferSumSquares = sumSquares
        sampleProcessingQueue.async {
            self.runningSumSquares += bufferSumSquares
            self.numberSamples += Int(bufferSize)
        }
    }

    func endAudioMetering() {
        self.timer?.invalidate()
        self.timer = nil
        self.microphone.stopFetchingAudio()
    }
}

// MARK: - SGaugeRadial stand-in

@MainActor
final class Gauge {
    struct QualitativeRange {
        let minimum: Double
        let maximum: Double
        let color: String          // UIColor name, alpha 0.4 in the document
    }

    let minimum: Double
    let maximum: Double
    var qualitativeRanges: [QualitativeRange] = []
    private(set) var value: Double

    init(minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = maximum
        self.value = minimum
    }

    /// SGaugeRadial -setValue:duration: (animation replaced by a print).
    func setValue(_ value: Double, duration: TimeInterval) {
        self.value = value
        let zoneName = zone(for: value)?.color ?? "-"
        print(String(format: "gauge %7.2f dB  [%@]  (animate %.1fs)", value, zoneName, duration))
    }

    func zone(for value: Double) -> QualitativeRange? {
        qualitativeRanges.first { range in
            value >= range.minimum && (value < range.maximum || (range.maximum == maximum && value == maximum))
        }
    }
}

// MARK: - SCViewController

@MainActor
final class SCViewController {
    private(set) var audioMeter: SCAudioMeter?
    private(set) var gauge: Gauge?

    func viewDidLoad() {
        // Create a gauge
        createGauge()

        // Let's try the audio meter
        let audioMeter = SCAudioMeter(samplePeriod: 0.1)
        self.audioMeter = audioMeter
        audioMeter.beginAudioMetering { [weak self] value in
            // Convert the value to a dB (logarithmic) scale
            let dBValue = 10 * log10(value)
            self?.gauge?.setValue(dBValue, duration: 0.1)
        }
    }

    func createGauge() {
        // initWithFrame:CGRectInset(self.view.bounds, 40, 100) fromMinimum:@(-60) toMaximum:@0
        let gauge = Gauge(minimum: -60, maximum: 0)
        // Set up some qualitative ranges
        gauge.qualitativeRanges = [
            .init(minimum: -60, maximum: -15, color: "green"),
            .init(minimum: -15, maximum: -8, color: "yellow"),
            .init(minimum: -8, maximum: -2, color: "orange"),
            .init(minimum: -2, maximum: 0, color: "red")
        ]
        self.gauge = gauge
    }
}

@main
struct SoundMeterMain {
    @MainActor
    static func main() {
        // Not in the document (EZAudio / the OS prompt handled it): ask for the microphone.
        if #available(macOS 14.0, iOS 17.0, *) {
            AVAudioApplication.requestRecordPermission { granted in
                print("record permission granted: \(granted)")
            }
        }

        let controller = SCViewController()
        controller.viewDidLoad()
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 5.0))
        controller.audioMeter?.endAudioMetering()
    }
}
