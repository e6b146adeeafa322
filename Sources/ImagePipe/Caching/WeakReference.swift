import Foundation
import PipelineCore

/// A value held without keeping it alive: weakly, the object every copy of the value holds, and
/// how to make the value again from that object. `MemoryCache`'s weak table keeps these
/// (SDWebImage's `shouldUseWeakMemoryCache`).
@usableFromInline
struct WeakReference<Value>: Sendable {
    @usableFromInline weak var object: (AnyObject & Sendable)?
    @usableFromInline let remake: @Sendable (AnyObject) -> Value?

    init(object: AnyObject & Sendable, remake: @escaping @Sendable (AnyObject) -> Value?) {
        self.object = object
        self.remake = remake
    }

    /// The value, while some copy of it is still alive somewhere.
    @inlinable var value: Value? { object.flatMap(remake) }

    @inlinable var isAlive: Bool { object != nil }
}

/// What a shard's weak table keeps of an entry: the value, weakly, and the cost and expiry to put
/// it back with.
@usableFromInline
struct WeakEntry<Value>: Sendable {
    @usableFromInline let reference: WeakReference<Value>
    @usableFromInline let cost: Int
    @usableFromInline let expiry: Double

    @inlinable
    init(reference: WeakReference<Value>, cost: Int, expiry: Double) {
        self.reference = reference
        self.cost = cost
        self.expiry = expiry
    }
}

extension Image {
    /// The weak table's hold on this image: its content box (pixels and frames), weakly, and its
    /// other fields, which are small, to rebuild it as it was stored.
    var weakReference: WeakReference<Image> {
        let (format, orientation, scale, metadata) = (format, orientation, scale, metadata)
        return WeakReference(object: box) { object in
            (object as? ContentBox).map { Image(box: $0, format: format, orientation: orientation, scale: scale, metadata: metadata) }
        }
    }

    /// `MemoryCache` makes weak references of its values with this when they are images.
    static let makeWeakReference: @Sendable (Image) -> WeakReference<Image> = { $0.weakReference }
}
