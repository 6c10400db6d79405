/**
 * Small images and PDFs for read_file and the scripted server's checks: a real 1×1 PNG (the
 * vision guide's example), PNG headers of any size, and plain-text PDFs of any page count.
 */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

/** A PNG's signature and IHDR claiming these dimensions (enough for the size checks). */
export function pngOfSize(width: number, height: number, padTo = 0): Buffer {
  const header = Buffer.from(ONE_PIXEL_PNG);
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return padTo > header.length ? Buffer.concat([header, Buffer.alloc(padTo - header.length)]) : header;
}

/** A minimal uncompressed PDF with `pages` page objects. */
export function pdfWithPages(pages: number, padTo = 0): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(' ');
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from(
      { length: pages },
      (_, index) => `${index + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj`,
    ),
  ];
  const text = `%PDF-1.4\n${objects.join('\n')}\ntrailer << /Root 1 0 R >>\n%%EOF\n`;
  const bytes = Buffer.from(text, 'latin1');
  return padTo > bytes.length ? Buffer.concat([bytes, Buffer.alloc(padTo - bytes.length, 0x20)]) : bytes;
}
