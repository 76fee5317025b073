// How the player's worker fills buffers (from the file, the output callback, or silence before a timed
// start) and publishes each one's meter reading as it begins to be heard.
import Glibc
import Locking
import Synchronization

extension PlaybackFeeder {
    /// Fills free buffers from the source while the stream is open and the source has audio.
    func fill() {
        guard stream.withLock({ stream.isOpen($0) }) else { return }
        while !state.sourceEnded || state.leadIn > 0, let index = pool.free.pop() {
            let leadIn = state.leadIn > 0
            let startFrame = state.decodeFrame
            let (frames, advanced) = leadIn ? (fillSilence(index), 0) : fillFromSource(index)
            guard frames > 0 else {
                pool.free.push(index)
                break
            }
            pool.setByteCount(frames * format.bytesPerFrame, of: index)
            pool.setStartFrame(state.streamFrames, of: index)
            keep(index, frames: frames, fileStart: startFrame, leadIn: leadIn,
                 rate: leadIn || advanced == Int64(frames) ? 1 : Double(advanced) / Double(frames))
            pool.filled.push(index)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if stream.starving.load(ordering: .sequentiallyConsistent) { stream.resume() }
        }
    }

    func fillSilence(_ index: Int) -> Int {
        let frames = Int(min(state.leadIn, Int64(pool.capacityBytes / format.bytesPerFrame)))
        memset(pool.bytes(of: index), 0, frames * format.bytesPerFrame)
        state.leadIn -= Int64(frames)
        return frames
    }

    /// Decodes into buffer `index`; returns the frames put there (0 when the source has ended) and the
    /// source frames they stand for (more or fewer than those when played faster or slower).
    func fillFromSource(_ index: Int) -> (frames: Int, advanced: Int64) {
        let capacity = pool.capacityBytes / format.bytesPerFrame
        var wanted = capacity
        let rate = state.stretcher?.rate ?? 1
        if let remaining = state.remaining {
            wanted = Int(min(Double(capacity), (Double(remaining) / rate).rounded(.up)))
        }
        var frames = 0
        var advanced: Int64 = 0
        let destination = pool.bytes(of: index)
        switch source {
        case .file(let reader) where state.stretcher != nil:
            (frames, advanced) = fillStretched(state.stretcher!, into: destination, wanted: wanted) { scratch, capacity in
                let read = reader.read(into: scratch, frames: capacity)
                if read == 0 {
                    if decodeFailed(reader) { return nil }
                    if rewoundForALoop(reader) { return -1 }
                }
                return read
            }
            // Past the end only when looping (at the end, the end: as the unstretched path leaves it).
            if reader.frameCount > 0, state.decodeFrame > reader.frameCount { state.decodeFrame %= reader.frameCount }
        case .callback(let handler) where state.stretcher != nil:
            (frames, advanced) = fillStretched(state.stretcher!, into: destination, wanted: wanted) { scratch, capacity in
                callbackSource(handler, into: scratch, capacity: capacity)
            }
        case .file(let reader):
            while frames < wanted {
                let read = state.scratch.withUnsafeMutableBufferPointer {
                    reader.read(into: $0.baseAddress!, frames: wanted - frames)
                }
                if read == 0 {
                    if decodeFailed(reader) { break }
                    if rewoundForALoop(reader) {
                        state.decodeFrame = 0
                        continue
                    }
                    state.sourceEnded = true
                    break
                }
                state.scratch.withUnsafeBufferPointer {
                    encodeBigEndianInt16($0.baseAddress!, count: read * format.channelCount,
                                 into: destination + frames * format.bytesPerFrame)
                }
                frames += read
                state.decodeFrame += Int64(read)
            }
            advanced = Int64(frames)
        case .callback(let handler):
            memset(destination, 0, capacity * format.bytesPerFrame)
            var buffer = OutputBuffer(startFrame: state.producedFrames, frameCapacity: wanted, format: format,
                                      bytes: UnsafeMutableRawBufferPointer(start: destination, count: wanted * format.bytesPerFrame))
            handler(&buffer)
            frames = max(0, min(wanted, buffer.frameCount))
            if frames < wanted { state.sourceEnded = true }
            state.producedFrames += Int64(frames)
            state.decodeFrame += Int64(frames)
            advanced = Int64(frames)
        }
        if var remaining = state.remaining {
            remaining -= advanced
            state.remaining = remaining
            if remaining <= 0 {
                state.remaining = nil
                state.sourceEnded = true
            }
        }
        return (frames, advanced)
    }

    /// After a read of nothing: if it failed, reports the decode error and ends the source (true).
    private func decodeFailed(_ reader: SoundFileReader) -> Bool {
        guard let error = reader.readError else { return false }
        state.endError = error
        events.yield(.decodeError(error, atFrame: state.decodeFrame))
        state.sourceEnded = true
        return true
    }

    /// At the file's end: with loops left (`numberOfLoops`), moves back to its start and counts the loop.
    private func rewoundForALoop(_ reader: SoundFileReader) -> Bool {
        let loops = control.withLock { $0.numberOfLoops }
        guard loops < 0 || state.loopsDone < loops, reader.frameCount > 0, reader.seek(to: 0) else { return false }
        state.loopsDone += 1
        return true
    }

    /// Fills `destination` with up to `wanted` frames out of the stretcher, putting source frames into it
    /// as it asks: `read(scratch, capacity)` puts up to `capacity` interleaved float frames in `scratch`
    /// and returns how many (0: the source has ended, and the stretcher lets out what it holds; −1: it went
    /// back to its start for a loop, read again; nil: it failed, stop here). Returns the frames put there
    /// and the source frames they stand for.
    private func fillStretched(_ stretcher: TimeStretcher, into destination: UnsafeMutableRawPointer, wanted: Int,
                               read: (UnsafeMutablePointer<Float>, Int) -> Int?) -> (frames: Int, advanced: Int64) {
        let channels = format.channelCount
        let capacity = pool.capacityBytes / format.bytesPerFrame
        let began = stretcher.sourcePosition
        var frames = 0
        while frames < wanted {
            let out = state.stretched.withUnsafeMutableBufferPointer {
                stretcher.receive(into: $0.baseAddress!, maxFrames: wanted - frames)
            }
            if out > 0 {
                state.stretched.withUnsafeBufferPointer {
                    encodeBigEndianInt16($0.baseAddress!, count: out * channels, into: destination + frames * format.bytesPerFrame)
                }
                frames += out
                continue
            }
            if stretcher.isFlushed {
                state.sourceEnded = true
                break
            }
            guard let got = state.scratch.withUnsafeMutableBufferPointer({ read($0.baseAddress!, capacity) }) else { break }
            if got < 0 { continue }
            if got == 0 {
                stretcher.flush()
                continue
            }
            state.scratch.withUnsafeBufferPointer { stretcher.put($0.baseAddress!, frames: got) }
            if got < capacity, case .callback = source { stretcher.flush() }  // a short buffer is the callback's last
        }
        state.decodeFrame = Int64(stretcher.sourcePosition.rounded())
        return (frames, Int64((stretcher.sourcePosition - began).rounded()))
    }

    /// Asks the output callback for up to `capacity` frames (in the stream's 16-bit format, into the
    /// feeder's callback scratch) and decodes them to floats in `scratch`; returns how many it gave.
    private func callbackSource(_ handler: @Sendable (inout OutputBuffer) -> Void, into scratch: UnsafeMutablePointer<Float>,
                                capacity: Int) -> Int {
        let bytes = state.callbackBytes
        memset(bytes, 0, capacity * format.bytesPerFrame)
        var buffer = OutputBuffer(startFrame: state.producedFrames, frameCapacity: capacity, format: format,
                                  bytes: UnsafeMutableRawBufferPointer(start: bytes, count: capacity * format.bytesPerFrame))
        handler(&buffer)
        let frames = max(0, min(capacity, buffer.frameCount))
        state.producedFrames += Int64(frames)
        _ = format.sampleFormat.decode(UnsafeRawBufferPointer(start: bytes, count: frames * format.bytesPerFrame),
                                       into: UnsafeMutableBufferPointer(start: scratch, count: frames * format.channelCount))
        return frames
    }

    /// Keeps a copy of a filled buffer and its place until it is heard.
    func keep(_ index: Int, frames: Int, fileStart: Int64, leadIn: Bool, rate: Double = 1) {
        if state.freeSlots.isEmpty { publishOldest() }
        let slot = state.freeSlots.removeLast()
        memcpy(history + slot * pool.capacityBytes, pool.bytes(of: index), frames * format.bytesPerFrame)
        let start = state.streamFrames
        state.streamFrames += Int64(frames)
        state.pending.append(Pending(streamEnd: state.streamFrames, frames: frames, fileStart: fileStart, fileEnd: state.decodeFrame,
                                     isLeadIn: leadIn, slot: slot))
        playhead.withLock { playhead in
            playhead.spans.append(.init(streamStart: start, frames: Int64(frames),
                                        fileStart: fileStart, isLeadIn: leadIn, rate: rate))
        }
    }

    /// Publishes the reading of every buffer that has begun to be heard (its first frame played): the
    /// needle moves as the sound it measures starts, as a meter on the output would.
    func publishHeard() {
        guard let played = stream.withLock({ stream.playedFrames($0) }) else { return }
        let heard = state.heardBefore + heardInStream(played: played)
        control.withLock { $0.heardFrames = heard }
        guard !state.pending.isEmpty else { return }
        while let first = state.pending.first, first.streamStart < played { publishOldest() }
        // Spans before the one being heard are no longer needed for `currentTime`.
        playhead.withLock { playhead in
            while playhead.spans.count > 1, playhead.spans[0].streamStart + playhead.spans[0].frames <= played {
                playhead.spans.removeFirst()
            }
        }
    }

    /// Frames of audio the open stream has played when its clock reads `played` (nil: it cannot tell,
    /// and the buffers that began to be heard count). The stream's lead-in silence comes first.
    func heardInStream(played: Int64?) -> Int64 {
        guard let played else { return state.publishedAudio }
        return max(0, min(played, state.streamFrames) - state.streamLeadIn)
    }

    func publishOldest() {
        guard !state.pending.isEmpty else { return }
        let entry = state.pending.removeFirst()
        state.freeSlots.append(entry.slot)
        guard !entry.isLeadIn else { return }
        state.publishedAudio += Int64(entry.frames)
        state.lastHeardFrame = entry.fileStart
        let bytes = UnsafeRawBufferPointer(start: history + entry.slot * pool.capacityBytes,
                                           count: entry.frames * format.bytesPerFrame)
        readout.measure(bytes, into: &state.meterScratch)
        readout.publish(bytes, endFrame: entry.fileEnd, frameCount: entry.frames, measured: state.meterScratch)
    }

    func reportUnderflows() {
        let count = stream.underflows.load(ordering: .relaxed)
        guard count > state.reportedUnderflows else { return }
        let fresh = count - state.reportedUnderflows
        state.reportedUnderflows = count
        // (The stream counts no running out at the end of what there was to play: that is the end.)
        guard state.mode == .playing else { return }
        underruns.add(fresh, ordering: .relaxed)
        events.yield(.underrun(atFrame: currentFrame))
    }
}
