/// A memory allocator — `CFAllocator`.
///
/// Only the allocators' identities matter here: a block buffer given memory with
/// ``kCFAllocatorNull`` as its block allocator leaves that memory alone; with `nil` or
/// ``kCFAllocatorDefault`` it takes the memory over and frees it (`free`) when it goes away, as
/// Core Media does with the default allocator.
public final class CFAllocator: Sendable {
    /// What the allocator does.
    public enum Kind: Sendable {
        /// The default allocator (`malloc`/`free`).
        case standard
        /// The allocator that allocates nothing and frees nothing.
        case null
    }

    /// What the allocator does.
    public let kind: Kind

    init(kind: Kind) { self.kind = kind }
}

/// The default allocator — `kCFAllocatorDefault` (`NULL` means the same).
public let kCFAllocatorDefault: CFAllocator = CFAllocator(kind: .standard)
/// The system allocator — `kCFAllocatorSystemDefault`.
public let kCFAllocatorSystemDefault: CFAllocator = kCFAllocatorDefault
/// The `malloc` allocator — `kCFAllocatorMalloc`.
public let kCFAllocatorMalloc: CFAllocator = kCFAllocatorDefault
/// The allocator that does nothing: memory given with it is borrowed, never freed —
/// `kCFAllocatorNull`.
public let kCFAllocatorNull: CFAllocator = CFAllocator(kind: .null)

/// The default allocator — `CFAllocatorGetDefault`.
public func CFAllocatorGetDefault() -> Unmanaged<CFAllocator>! {
    Unmanaged.passUnretained(kCFAllocatorDefault)
}
