// Seed 000 ("AVMeter: Build a VU Meter", Examples 6-1 to 6-7): a VU pair on an AVAudioPlayer playing
// sample.mp3 from the main bundle (the executable's folder here), compiled against OpenAVFAudio. Beside
// the import line it differs from the Swift that builds against Apple's AVFoundation only in the UI it
// draws: no UIKit (the views print their bars), CGRect and CGSize from Foundation, and the redraw timer
// written with a block (Timer's selector form needs the Objective-C runtime; the block form is on both).
//
// What it does: the Play button starts the player and the meters; every 10 ms the view reads both
// channels' peak and average (dB → (50 + dB) / 50), lets the bars jump up and fall by 0.02 and 0.01 a
// frame, and prints them every tenth frame; Stop stops the player and the meters, and the bars fall to 0.
//
// Run: seed-avmeter (with sample.mp3 beside it): plays 3 s, stops, lets the bars fall for 1.5 s.

import Foundation
import OpenAVFAudio  // on Apple's systems: import AVFoundation

/// Stand-in for UIImage: only the resource path and size the document uses.
struct MeterImage: Sendable {
    var path: String
    var size: CGSize
}

// MARK: - Example 6-5 / 6-6: AVMeterView

@MainActor
final class AVMeterView: NSObject {
    var player: AVAudioPlayer?
    var meterAveragePowerImage: MeterImage?
    var meterPeakPowerImage: MeterImage?

    var meterSpacing: Float
    var meterHorizontalBorder: Float
    var meterVerticalBorder: Float

    let frame: CGRect
    private var cachedAveragePowerForChannel: [Float] = [0, 0]
    private var cachedPeakPowerForChannel: [Float] = [0, 0]
    private var avgMeterFrame: [CGRect] = [.zero, .zero]
    private var peakMeterFrame: [CGRect] = [.zero, .zero]
    private var updating: Bool

    /// Rects the document would pass to drawAsPatternInRect: (for tests).
    private(set) var lastAverageBarRects: [CGRect] = [.zero, .zero]
    private(set) var lastPeakBarRects: [CGRect] = [.zero, .zero]
    private var frameCounter = 0

    init(frame: CGRect) {
        self.frame = frame
        player = nil
        updating = false

        meterAveragePowerImage = nil
        meterPeakPowerImage = nil

        meterSpacing = 40.0
        meterHorizontalBorder = 20.0
        meterVerticalBorder = 20.0
        super.init()

        for i in 0..<2 {
            cachedPeakPowerForChannel[i] = 0.0
            cachedAveragePowerForChannel[i] = 0.0
        }

        /* Calculate meter positions */
        let spacing = CGFloat(meterSpacing)
        let hBorder = CGFloat(meterHorizontalBorder)
        let vBorder = CGFloat(meterVerticalBorder)
        avgMeterFrame[0] = CGRect(x: hBorder,
                                  y: vBorder,
                                  width: (frame.size.width / 2) - (spacing / 2) - hBorder,
                                  height: frame.size.height - vBorder)
        avgMeterFrame[1] = CGRect(x: hBorder + (frame.size.width / 2),
                                  y: vBorder,
                                  width: (frame.size.width / 2) - (spacing / 2) - hBorder,
                                  height: frame.size.height - vBorder)

        // meterPeakPowerImage is still nil here, exactly as in the document,
        // so the peak frames get height 0.
        let peakHeight = meterPeakPowerImage?.size.height ?? 0
        peakMeterFrame[0] = CGRect(x: avgMeterFrame[0].origin.x,
                                   y: avgMeterFrame[0].origin.y,
                                   width: avgMeterFrame[0].size.width,
                                   height: peakHeight)
        peakMeterFrame[1] = CGRect(x: avgMeterFrame[1].origin.x,
                                   y: avgMeterFrame[1].origin.y,
                                   width: avgMeterFrame[1].size.width,
                                   height: peakHeight)
    }

    /// drawRect: — reads the meters, updates the cached bars, "renders" them.
    func draw(_ rect: CGRect) {
        var averagePowerForChannel: [Float] = [0, 0]
        var peakPowerForChannel: [Float] = [0, 0]
        var renderedBottom: Bool

        // [player numberOfChannels] on a nil player is 0 in Objective-C.
        if (player?.numberOfChannels ?? 0) < 1 {
            return
        }

        /* Read meter values */
        if player == nil || player?.isMeteringEnabled == false {
            averagePowerForChannel[0] = 0.0
            averagePowerForChannel[1] = 0.0
            peakPowerForChannel[0] = cachedPeakPowerForChannel[0]
            peakPowerForChannel[1] = cachedPeakPowerForChannel[1]
        } else if let player {
            var channels = player.numberOfChannels
            if channels > 2 {
                channels = 2
            }
            for i in 0..<channels {
                var db: Float
                player.updateMeters()
                db = player.peakPower(forChannel: i)
                peakPowerForChannel[i] = (50.0 + db) / 50.0
                db = player.averagePower(forChannel: i)
                averagePowerForChannel[i] = (50.0 + db) / 50.0
            }
            if channels == 1 {
                peakPowerForChannel[1] = peakPowerForChannel[0]
                averagePowerForChannel[1] = averagePowerForChannel[0]
            }
        }

        /* Either jump to accommodate new level or decrement meters */
        renderedBottom = true
        for i in 0..<2 {
            if averagePowerForChannel[i] > cachedAveragePowerForChannel[i] {
                cachedAveragePowerForChannel[i] = averagePowerForChannel[i]
            }
            cachedAveragePowerForChannel[i] -= 0.02
            if cachedAveragePowerForChannel[i] < 0 {
                cachedAveragePowerForChannel[i] = 0
            }

            if peakPowerForChannel[i] > cachedPeakPowerForChannel[i] {
                cachedPeakPowerForChannel[i] = peakPowerForChannel[i]
            }
            cachedPeakPowerForChannel[i] -= 0.01
            if cachedPeakPowerForChannel[i] < 0.0 {
                cachedPeakPowerForChannel[i] = 0.0
            }

            if cachedPeakPowerForChannel[i] != 0.0
                || cachedAveragePowerForChannel[i] != 0.0 {
                renderedBottom = false
            }

            let h = avgMeterFrame[i].size.height
            if meterAveragePowerImage != nil {
                let avg = CGFloat(cachedAveragePowerForChannel[i])
                lastAverageBarRects[i] = CGRect(
                    x: avgMeterFrame[i].origin.x,
                    y: avgMeterFrame[i].origin.y + (h - (h * avg)),
                    width: avgMeterFrame[i].size.width,
                    height: h - (h - (h * avg)))
            }
            if let peakImage = meterPeakPowerImage {
                let peak = CGFloat(cachedPeakPowerForChannel[i])
                lastPeakBarRects[i] = CGRect(
                    x: peakMeterFrame[i].origin.x,
                    y: peakMeterFrame[i].origin.y + (h - (h * peak)),
                    width: peakMeterFrame[i].size.width,
                    height: peakImage.size.height)
            }
        }

        // "Render": print the bar levels instead of drawing images.
        frameCounter += 1
        if frameCounter % 10 == 0 || renderedBottom {
            let avg = cachedAveragePowerForChannel.map { String(format: "%.2f", $0) }
            let peak = cachedPeakPowerForChannel.map { String(format: "%.2f", $0) }
            print("VU avg L/R \(avg[0])/\(avg[1])  peak L/R \(peak[0])/\(peak[1])")
        }

        if updating == true || renderedBottom == false {
            _ = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: false) { [weak self] _ in
                MainActor.assumeIsolated { self?.handleTimer() }
            }
        }
    }

    func handleTimer() {
        setNeedsDisplay()
    }

    /// UIView.setNeedsDisplay stand-in: redraw now.
    func setNeedsDisplay() {
        draw(frame)
    }

    func startUpdating() {
        updating = true
        player?.isMeteringEnabled = true
        setNeedsDisplay()
    }

    func stopUpdating() {
        updating = false
        player?.isMeteringEnabled = false
        setNeedsDisplay()
    }
}

// MARK: - Example 6-3 / 6-4: AVMeterViewController

@MainActor
final class AVMeterViewController: NSObject {
    private(set) var navButtonTitle = ""          // UIBarButtonItem title
    private(set) var title = ""                   // navigation title
    private(set) var player: AVAudioPlayer?
    private(set) var meterView: AVMeterView?

    override init() {
        super.init()
        // NSURL fileURLWithPath: [[NSBundle mainBundle] pathForResource:@"sample" ofType:@"mp3"]
        if let path = Bundle.main.path(forResource: "sample", ofType: "mp3") {
            do {
                player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: path))
            } catch {
                print("Failed to initialize AVAudioPlayer: \(error)")
            }
        } else {
            print("Failed to initialize AVAudioPlayer: sample.mp3 not found in \(Bundle.main.bundlePath)")
        }

        setNavProperties()
        player?.prepareToPlay()
    }

    func loadView() {
        let frame = CGRect(x: 0, y: 0, width: 320, height: 460) // iPhone view under a nav bar
        let meterView = AVMeterView(frame: frame)
        meterView.player = player

        // UIImage initWithContentsOfFile: → resource path only; sizes unknown
        // without UIKit, so a nominal 4-pt peak-bar height is used.
        let peak = Bundle.main.path(forResource: "peakMeterImage", ofType: "png")
            .map { MeterImage(path: $0, size: CGSize(width: 1, height: 4)) }
            ?? MeterImage(path: "peakMeterImage.png", size: CGSize(width: 1, height: 4))
        let avg = Bundle.main.path(forResource: "avgMeterImage", ofType: "png")
            .map { MeterImage(path: $0, size: CGSize(width: 1, height: 1)) }
            ?? MeterImage(path: "avgMeterImage.png", size: CGSize(width: 1, height: 1))

        meterView.meterPeakPowerImage = peak
        meterView.meterAveragePowerImage = avg

        self.meterView = meterView
    }

    func setNavProperties() {
        navButtonTitle = (player?.isPlaying == true) ? "Stop" : "Play"
        if player?.isPlaying == true {
            title = "Playing"
        } else {
            title = "Stopped"
        }
        print("[\(title)]  button: \(navButtonTitle)")
    }

    func navButtonWasPressed() {
        if player?.isPlaying == true {
            player?.stop()
            meterView?.stopUpdating()
        } else {
            _ = player?.play()
            meterView?.startUpdating()
        }
        setNavProperties()
    }
}

// MARK: - Example 6-1 / 6-2: AVMeterAppDelegate

@MainActor
final class AVMeterAppDelegate: NSObject {
    private(set) var viewController: AVMeterViewController?

    func applicationDidFinishLaunching() {
        // UIWindow / UINavigationController omitted; the controller's view is loaded directly.
        let viewController = AVMeterViewController()
        viewController.loadView()
        self.viewController = viewController
    }
}

// MARK: - Example 6-7: main

@main
struct AVMeterMain {
    @MainActor
    static func main() {
        let delegate = AVMeterAppDelegate()
        delegate.applicationDidFinishLaunching()
        guard let controller = delegate.viewController else { return }

        controller.navButtonWasPressed()                          // "Play"
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 3.0))
        controller.navButtonWasPressed()                          // "Stop"
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 1.5))  // let the bars fall to 0
    }
}
