"""The HTML pieces every part of the report builds with: a table, and the
one-line summary that goes right above a table (the page checks that every
long table has one)."""
import html


def _table(head, rows, numeric=(), cls=None):
    klass = f' class="{cls}"' if cls else ""
    out = [f"<table{klass}>",
           "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for i, c in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{html.escape(str(c))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _summary(text):
    return f'<p class="summary">{html.escape(text)}</p>'
