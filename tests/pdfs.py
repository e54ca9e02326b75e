"""Small real PDFs for tests, built with pypdf: text pages, an outline, optional encryption."""

from __future__ import annotations

import io


def make_pdf(sections: list[tuple[str, list[str]]], *, password: str | None = None, outline: bool = True) -> bytes:
    """One page per entry of each section's page list; an outline entry per section."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"),
        NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    })
    font_ref = writer._add_object(font)  # noqa: SLF001 - pypdf has no public call for a shared resource
    for title, pages in sections:
        first = None
        for text in pages:
            page = writer.add_blank_page(width=612, height=792)
            page[NameObject("/Resources")] = DictionaryObject({
                NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref}),
            })
            stream = DecodedStreamObject()
            escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            stream.set_data(f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1"))
            page[NameObject("/Contents")] = writer._add_object(stream)  # noqa: SLF001
            if first is None:
                first = len(writer.pages) - 1
        if outline and first is not None:
            writer.add_outline_item(title=title, page_number=first)
    if password is not None:
        writer.encrypt(user_password=password, owner_password=password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
