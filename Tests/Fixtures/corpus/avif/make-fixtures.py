#!/usr/bin/env python3
"""Makes the AVIF files of this folder: avifenc 0.11 (Debian's libavif-bin) encodes
TestPNGWriter.pattern (Tests/TestSupport/TestPNGWriter.swift, repeated below), then the boxes are
edited the way libavif's own test files were made (tests/data/README.md in AOMediaCodec/libavif).
Every edit keeps the file valid ISOBMFF: box sizes and every offset it moves (iloc extents,
stco chunk offsets) are rewritten. Lossless encodes, so the expected pixels are the pattern's.

    python3 Tests/Fixtures/corpus/avif/make-fixtures.py   # needs /usr/bin/avifenc

avifenc's output depends on its libaom; the files committed were made with libavif 0.11.1 and
libaom 3.6.0 (Debian 12).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ALPHA_URN = b'urn:mpeg:mpegB:cicp:systems:auxiliary:alpha'
DEPTH_URN = b'urn:mpeg:mpegB:cicp:systems:auxiliary:depth'


# --- the source pictures -------------------------------------------------------------------------

def pattern(width, height, alpha, seed=0):
    """TestPNGWriter.pattern: gradients, an 8-pixel checker, opacity ramping left to right."""
    rgba = bytearray([255]) * (width * height * 4)
    for y in range(height):
        for x in range(width):
            o = (y * width + x) * 4
            checker = ((x + seed * 3) // 8 + y // 8) % 2 == 0
            rgba[o] = (x * 255) // max(width - 1, 1)
            rgba[o + 1] = (y * 255) // max(height - 1, 1)
            rgba[o + 2] = (seed * 60) % 256 if checker else 200
            if alpha:
                rgba[o + 3] = (x * 255) // max(width - 1, 1)
    return bytes(rgba)


def png(width, height, alpha, seed=0):
    rgba = pattern(width, height, alpha, seed)
    channels = 4 if alpha else 3
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            o = (y * width + x) * 4
            raw += rgba[o:o + channels]

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack('>IIBBBBB', width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(bytes(raw), 6)) + chunk(b'IEND', b'')


def avifenc(work, arguments, sources):
    """avifenc -s 6 -l (lossless: 4:4:4, identity matrix) on PNGs of the pattern. Not speed 10:
    libaom 3.6 at speed 10 codes the later frames of a lossless sequence as copies of the first."""
    paths = []
    for index, (width, height, alpha, seed) in enumerate(sources):
        path = os.path.join(work, f'source-{index}.png')
        with open(path, 'wb') as f:
            f.write(png(width, height, alpha, seed))
        paths.append(path)
    output = os.path.join(work, 'out.avif')
    subprocess.run(['avifenc', '-s', '6', '-l'] + arguments + paths + [output], check=True, stdout=subprocess.DEVNULL)
    with open(output, 'rb') as f:
        return without_times(bytearray(f.read()))


def without_times(data):
    """The creation and modification times of mvhd, tkhd and mdhd set to 0, so that the files
    made again are the same bytes."""
    def clear(box):
        width = 8 if data[box.payload] == 1 else 4
        data[box.payload + 4:box.payload + 4 + 2 * width] = bytes(2 * width)

    for moov in (b for b in boxes(data, 0, len(data)) if b.kind == 'moov'):
        for b in boxes(data, moov.payload, moov.end):
            if b.kind == 'mvhd':
                clear(b)
            elif b.kind == 'trak':
                clear(child(data, b, 'tkhd'))
                clear(child(data, child(data, b, 'mdia'), 'mdhd'))
    return data


# --- boxes ---------------------------------------------------------------------------------------

class Box:
    def __init__(self, kind, start, header, end):
        self.kind, self.start, self.header, self.end = kind, start, header, end

    @property
    def payload(self):
        return self.start + self.header


def boxes(data, start, end):
    """The boxes in data[start:end] (32-bit sizes, as avifenc writes them)."""
    found = []
    while start + 8 <= end:
        size, kind = struct.unpack('>I4s', data[start:start + 8])
        assert size >= 8 and start + size <= end, f'box {kind} at {start}'
        found.append(Box(kind.decode('latin1'), start, 8, start + size))
        start += size
    return found


def child(data, parent, kind):
    return next(b for b in boxes(data, parent.payload, parent.end) if b.kind == kind)


def box(kind, payload):
    return struct.pack('>I', len(payload) + 8) + kind.encode('latin1') + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, 'big') + payload)


def u16(v): return struct.pack('>H', v)
def u32(v): return struct.pack('>I', v)
def read_u32(data, at): return struct.unpack('>I', data[at:at + 4])[0]


class Meta:
    """The top-level meta box as a list of children, with iloc, iinf, iref and ipma read into
    lists, so items can be moved, dropped and re-referenced and the box written back."""

    def __init__(self, data):
        top = boxes(data, 0, len(data))
        self.box = next(b for b in top if b.kind == 'meta')
        self.children = [(b.kind, bytes(data[b.payload:b.end])) for b in boxes(data, self.box.payload + 4, self.box.end)]

    def payload(self, kind):
        return next(p for k, p in self.children if k == kind)

    def replace(self, kind, payload):
        self.children = [(k, payload if k == kind else p) for k, p in self.children]

    # iloc: version 0-2, no extent index (avifenc writes version 0, 4-byte offsets and lengths).
    def items_locations(self):
        p = self.payload('iloc')
        version = p[0]
        offset_size, length_size, base_size = p[4] >> 4, p[4] & 15, p[5] >> 4
        at, width = 6, 2 if version < 2 else 4
        count = int.from_bytes(p[at:at + width], 'big'); at += width
        entries = []
        for _ in range(count):
            item = int.from_bytes(p[at:at + width], 'big'); at += width
            method = 0
            if version >= 1:
                method = u16_at(p, at) & 15; at += 2
            at += 2  # data_reference_index
            base = int.from_bytes(p[at:at + base_size], 'big'); at += base_size
            extent_count = u16_at(p, at); at += 2
            extents = []
            for _ in range(extent_count):
                offset = int.from_bytes(p[at:at + offset_size], 'big'); at += offset_size
                length = int.from_bytes(p[at:at + length_size], 'big'); at += length_size
                extents.append([base + offset, length])
            entries.append({'id': item, 'method': method, 'extents': extents})
        return entries

    def set_items_locations(self, entries):
        """Version 0 as avifenc writes it (4-byte offsets and lengths, no base offset), or 1 when an
        item is in idat (construction method 1)."""
        version = 1 if any(e['method'] for e in entries) else 0
        p = bytes([version, 0, 0, 0, 0x44, 0x00]) + u16(len(entries))
        for e in entries:
            p += u16(e['id']) + (u16(e['method']) if version else b'') + u16(0) + u16(len(e['extents']))
            for offset, length in e['extents']:
                p += u32(offset) + u32(length)
        self.replace('iloc', p)

    # iinf version 0; entries kept as whole infe boxes.
    def item_infos(self):
        p = self.payload('iinf')
        assert p[0] == 0
        return [bytes(p[b.start:b.end]) for b in boxes(p, 6, len(p))]

    def set_item_infos(self, infos):
        self.replace('iinf', bytes(4) + u16(len(infos)) + b''.join(infos))

    # ipma version 0, 7-bit property indices: [item, bytes of its associations]; and ipco beside it.
    def property_associations(self):
        p = self.payload('iprp')
        ipma = next(b for b in boxes(p, 0, len(p)) if b.kind == 'ipma')
        assert p[ipma.payload] == 0 and p[ipma.payload + 3] & 1 == 0
        at, found = ipma.payload + 8, []
        for _ in range(read_u32(p, ipma.payload + 4)):
            count = p[at + 2]
            found.append([u16_at(p, at), bytearray(p[at + 3:at + 3 + count])])
            at += 3 + count
        return found

    def property_kinds(self):
        p = self.payload('iprp')
        ipco = next(b for b in boxes(p, 0, len(p)) if b.kind == 'ipco')
        return [b.kind for b in boxes(p, ipco.payload, ipco.end)]

    def set_property_associations(self, associations):
        p = self.payload('iprp')
        ipco = next(b for b in boxes(p, 0, len(p)) if b.kind == 'ipco')
        entries = b''.join(u16(item) + bytes([len(a)]) + bytes(a) for item, a in associations)
        self.replace('iprp', bytes(p[ipco.start:ipco.end]) + full_box('ipma', 0, 0, u32(len(associations)) + entries))

    # iref version 0: [kind, from, [to...]].
    def references(self):
        p = self.payload('iref')
        assert p[0] == 0
        found = []
        for b in boxes(p, 4, len(p)):
            source, count = u16_at(p, b.payload), u16_at(p, b.payload + 2)
            found.append([b.kind, source, [u16_at(p, b.payload + 4 + 2 * i) for i in range(count)]])
        return found

    def set_references(self, references):
        p = bytes(4)
        for kind, source, targets in references:
            p += box(kind, u16(source) + u16(len(targets)) + b''.join(u16(t) for t in targets))
        self.replace('iref', p)

    def write(self):
        return box('meta', bytes(4) + b''.join(box(k, p) for k, p in self.children))


def u16_at(data, at): return struct.unpack('>H', data[at:at + 2])[0]


def infe_id(infe):
    return u16_at(infe, 12)


def with_meta(data, meta):
    """data with its meta box replaced by meta.write(); the file extents (construction method 0)
    behind the old box move by the difference."""
    old = meta.box
    entries = meta.items_locations()
    written = meta.write()
    delta = len(written) - (old.end - old.start)
    for e in entries:
        if e['method'] == 0:
            e['extents'] = [[o + delta if o >= old.end else o, n] for o, n in e['extents']]
    meta.set_items_locations(entries)
    written = meta.write()
    assert len(written) - (old.end - old.start) == delta
    return bytearray(data[:old.start] + written + data[old.end:])


def move_offsets(data, at, delta):
    """Chunk offsets (stco) at or past `at` move by delta (the meta's extents are moved by callers)."""
    top = boxes(data, 0, len(data))
    for moov in (b for b in top if b.kind == 'moov'):
        for trak in (b for b in boxes(data, moov.payload, moov.end) if b.kind == 'trak'):
            stbl = child(data, child(data, child(data, trak, 'mdia'), 'minf'), 'stbl')
            stco = child(data, stbl, 'stco')
            for i in range(read_u32(data, stco.payload + 4)):
                where = stco.payload + 8 + 4 * i
                offset = read_u32(data, where)
                if offset >= at:
                    data[where:where + 4] = u32(offset + delta)
    meta = Meta(data)
    entries = meta.items_locations()
    for e in entries:
        if e['method'] == 0:
            e['extents'] = [[o + delta if o >= at else o, n] for o, n in e['extents']]
    meta.set_items_locations(entries)
    written = meta.write()
    assert len(written) == meta.box.end - meta.box.start, 'iloc changed size'
    data[meta.box.start:meta.box.end] = written
    return data


# --- the files -----------------------------------------------------------------------------------

def meta_size_zero(work):
    """libavif's draw_points_idat_metasize0.avif: the item data in `idat` inside the meta box,
    which is the file's last box and says size 0 ("to the end of the file")."""
    data = avifenc(work, [], [(33, 11, True, 0)])
    meta = Meta(data)
    entries = meta.items_locations()
    idat = b''
    for e in entries:
        assert e['method'] == 0
        moved = []
        for offset, length in e['extents']:
            moved.append([len(idat), length])
            idat += bytes(data[offset:offset + length])
        e['method'], e['extents'] = 1, moved
    meta.set_items_locations(entries)
    meta.children.append(('idat', idat))
    written = bytearray(meta.write())
    written[0:4] = u32(0)
    ftyp = boxes(data, 0, len(data))[0]
    return data[ftyp.start:ftyp.end] + written


def sequence(work, alpha):
    """Three 24x16 frames of 100 ms (seeds 1, 2, 3), the shape of AVIFFixtures.animated."""
    return avifenc(work, ['--timescale', '1000', '--duration', '100'], [(24, 16, alpha, seed) for seed in (1, 2, 3)])


def audio_track(track_id, duration, chunk_offset, sample_size):
    """A 'soun' track the way MP4Box adds AAC: tkhd of size 0x0 and volume 1.0, an mp4a entry."""
    matrix = u32(0x10000) + u32(0) + u32(0) + u32(0) + u32(0x10000) + u32(0) + u32(0) + u32(0) + u32(0x40000000)
    tkhd = full_box('tkhd', 0, 3, u32(0) + u32(0) + u32(track_id) + u32(0) + u32(duration) + bytes(8)
                    + u16(0) + u16(1) + u16(0x0100) + u16(0) + matrix + u32(0) + u32(0))
    mdhd = full_box('mdhd', 0, 0, u32(0) + u32(0) + u32(1000) + u32(duration) + u16(0x55C4) + u16(0))
    hdlr = full_box('hdlr', 0, 0, u32(0) + b'soun' + bytes(12) + b'SoundHandler\0')
    smhd = full_box('smhd', 0, 0, u16(0) + u16(0))
    dinf = box('dinf', full_box('dref', 0, 0, u32(1) + full_box('url ', 0, 1, b'')))
    mp4a = box('mp4a', bytes(6) + u16(1) + bytes(8) + u16(2) + u16(16) + u16(0) + u16(0) + u32(44100 << 16))
    stbl = box('stbl', full_box('stsd', 0, 0, u32(1) + mp4a)
               + full_box('stts', 0, 0, u32(1) + u32(1) + u32(duration))
               + full_box('stsc', 0, 0, u32(1) + u32(1) + u32(1) + u32(1))
               + full_box('stsz', 0, 0, u32(0) + u32(1) + u32(sample_size))
               + full_box('stco', 0, 0, u32(1) + u32(chunk_offset)))
    return box('trak', tkhd + box('mdia', mdhd + hdlr + box('minf', smhd + dinf + stbl)))


def sequence_with_audio(work):
    """libavif's colors-animated-8bpc-audio.avif: an image sequence with an audio track appended
    to `moov` (as `MP4Box -add audio.aac` does), its one sample in an `mdat` of its own at the end."""
    data = sequence(work, alpha=False)
    moov = next(b for b in boxes(data, 0, len(data)) if b.kind == 'moov')
    assert all(b.start > moov.start for b in boxes(data, 0, len(data)) if b.kind == 'mdat')
    audio_sample = bytes(range(16))
    trak = audio_track(track_id=2, duration=300, chunk_offset=0, sample_size=len(audio_sample))
    insertion = moov.end
    data = move_offsets(data, insertion, len(trak))
    data[moov.start:moov.start + 4] = u32(moov.end - moov.start + len(trak))
    data = data[:insertion] + trak + data[insertion:]
    # The sample goes at the end; its chunk offset is fixed once the file's length is known.
    audio_mdat = len(data)
    data += box('mdat', audio_sample)
    moov = next(b for b in boxes(data, 0, len(data)) if b.kind == 'moov')
    last = [b for b in boxes(data, moov.payload, moov.end) if b.kind == 'trak'][-1]
    stco = child(data, child(data, child(data, child(data, last, 'mdia'), 'minf'), 'stbl'), 'stco')
    data[stco.payload + 8:stco.payload + 12] = u32(audio_mdat + 8)
    mvhd = child(data, moov, 'mvhd')
    data[mvhd.end - 4:mvhd.end] = u32(3)
    return data


def depth_instead_of_alpha(data):
    """libavif's colors-animated-8bpc-depth-exif-xmp.avif: every alpha URN (the item's auxC, the
    track's auxi) changed to depth's, same length, in place."""
    assert ALPHA_URN in data
    return bytearray(bytes(data).replace(ALPHA_URN, DEPTH_URN))


def grid(work, columns, alpha):
    """A grid of 64x64 tiles (avifenc's smallest), columns wide, one row."""
    return avifenc(work, ['-g', f'{columns}x1'], [(64 * columns, 64, alpha, 0)])


def grid_alpha_per_tile(work):
    """libavif's color_grid_alpha_nogrid.avif (libavif issue 1203): the colour is a grid, and each
    colour tile has its own alpha auxiliary image; there is no alpha grid."""
    data = grid(work, 2, alpha=True)
    meta = Meta(data)
    references = meta.references()
    alpha_grid = next(source for kind, source, targets in references if kind == 'auxl')
    color_grid = next(targets[0] for kind, source, targets in references if kind == 'auxl')
    color_tiles = next(targets for kind, source, targets in references if kind == 'dimg' and source == color_grid)
    alpha_tiles = next(targets for kind, source, targets in references if kind == 'dimg' and source == alpha_grid)
    meta.set_references([['dimg', color_grid, color_tiles]]
                        + [['auxl', a, [c]] for a, c in zip(alpha_tiles, color_tiles)])
    # The alpha grid item goes: its item info, location and property associations.
    meta.set_item_infos([i for i in meta.item_infos() if infe_id(i) != alpha_grid])
    meta.set_items_locations([e for e in meta.items_locations() if e['id'] != alpha_grid])
    meta.set_property_associations([a for a in meta.property_associations() if a[0] != alpha_grid])
    return with_meta(data, meta)


def grid_reversed(work):
    """libavif's sofa_grid1x5_420_reversed_dimg_order.avif: a 3x1 grid whose dimg list is edited
    from 2,3,4 to 4,3,2, in place, so the tile stored first is drawn last."""
    data = grid(work, 3, alpha=False)
    meta = Meta(data)
    references = meta.references()
    kind, source, targets = references[0]
    assert kind == 'dimg' and len(targets) == 3
    references[0][2] = list(reversed(targets))
    meta.set_references(references)
    return with_meta(data, meta)


def transforms(work):
    """libavif's clap_irot_imir: a crop (clap) of 27x19 at (5, 3) of a 40x30 picture, rotated a
    quarter turn (irot 1) and mirrored top to bottom (imir 0), all three marked essential."""
    return avifenc(work, ['--crop', '5,3,27,19', '--irot', '1', '--imir', '0'], [(40, 30, True, 0)])


def non_essential(data):
    """libavif's clap_irot_imir_non_essential.avif: the clap, irot and imir associations of
    `ipma` with their essential bit cleared."""
    meta = Meta(data)
    kinds = meta.property_kinds()
    associations = meta.property_associations()
    cleared = 0
    for item, entries in associations:
        for i, entry in enumerate(entries):
            if kinds[(entry & 0x7F) - 1] in ('clap', 'irot', 'imir'):
                assert entry & 0x80
                entries[i] = entry & 0x7F
                cleared += 1
    assert cleared == 3
    meta.set_property_associations(associations)
    return with_meta(data, meta)


def sequence_clap(work):
    """An image sequence whose av01 sample entry carries clap: 16x10 at (4, 2) of 24x16."""
    return avifenc(work, ['--crop', '4,2,16,10', '--timescale', '1000', '--duration', '100'],
                   [(24, 16, False, seed) for seed in (1, 2, 3)])


FILES = {
    'meta-size-zero.avif': meta_size_zero,
    'sequence-audio-track.avif': sequence_with_audio,
    'sequence-depth-track.avif': lambda work: depth_instead_of_alpha(sequence(work, alpha=True)),
    'still-depth-item.avif': lambda work: depth_instead_of_alpha(avifenc(work, [], [(31, 17, True, 0)])),
    'grid-alpha-per-tile.avif': grid_alpha_per_tile,
    'grid-dimg-reversed.avif': grid_reversed,
    'grid-dimg-in-order.avif': lambda work: grid(work, 3, alpha=False),
    'clap-irot-imir.avif': transforms,
    'clap-irot-imir-non-essential.avif': lambda work: non_essential(transforms(work)),
    'sequence-clap.avif': sequence_clap,
}


def main():
    names = sys.argv[1:] or list(FILES)
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            data = FILES[name](work)
            with open(os.path.join(HERE, name), 'wb') as f:
                f.write(data)
            print(f'{name}: {len(data)} bytes')


if __name__ == '__main__':
    main()
