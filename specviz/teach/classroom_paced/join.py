"""Joining from the projector: the join address and its QR code."""

from __future__ import annotations



from specviz.teach.classroom import normalize_code


def join_url(base_url: str, code: str) -> str:
    """The link a student opens to join `code`: the Classroom page with the code filled in.

    >>> join_url("http://192.168.1.20:8501/", "abc234")
    'http://192.168.1.20:8501/classroom?code=ABC234'
    """
    return f"{base_url.rstrip('/')}/classroom?code={normalize_code(code)}"


def qr_svg(text: str, scale: int = 10) -> str:
    """`text` as a QR code in an inline SVG (black on white, with its quiet zone), for a phone's camera."""
    import segno  # noqa: PLC0415 - only the presenter view draws one

    return segno.make(text, error="m").svg_inline(scale=scale, dark="#000", light="#fff")


def qr_data_uri(text: str, scale: int = 10) -> str:
    """The same QR code as a PNG `data:` URI, for an <img> where inline SVG is not allowed (st.html drops it)."""
    import segno  # noqa: PLC0415

    return segno.make(text, error="m").png_data_uri(scale=scale, dark="#000", light="#fff")
