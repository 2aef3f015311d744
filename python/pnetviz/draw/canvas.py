"""The drawing toolkit in one namespace, as every plot module uses it (`canvas.figure`,
`canvas.add_graph`, ...): re-exports of the modules it is split into by responsibility:
draw.geometry (Figure, Frame, NDC and text geometry), draw.sampling (what a pad shows, as
points), draw.figures (single-frame canvases), draw.layout (legends and context in the frame),
draw.ratio (main frame over a ratio panel), draw.matrices (matrices, maps, palettes) and
draw.primitives (graphs, bands, histograms, lines, text, save). Call inside `style.cms_style(...)`.
"""

from __future__ import annotations

from pnetviz.draw.geometry import (  # noqa: F401
    unique, Figure, Margins, Frame, Y_TITLE_STEP, Y_TITLE_DESCENT, Y_TITLE_THICK, Y_TITLE_GAP, TITLE_EDGE_PX,
    GLYPH_WIDTH, tick_labels, log_tick_labels, label_width_px, fit_y_title_offset, title_descent, y_title_far_px, visible_length, to_ndc,
    margins_of, margins_to_ndc, pad_scale,
)
from pnetviz.draw.sampling import (  # noqa: F401
    SAMPLE_STEP, MARKER_HALF, ERROR_SAMPLES, drawn_items, drawn_points,
)
from pnetviz.draw.figures import (  # noqa: F401
    figure, painted_frame, unit_axis_ticks, HEADER_LEFT, HEADER_RIGHT,
    plain_figure, FRAME_BINS, draw_frame, panel_figure, reframe,
)
from pnetviz.draw.layout import (  # noqa: F401
    LINE_HEIGHT, CORNERS, BOX_INSET, box_width,
    Layout, free_box, add_legend_box, boxed_figure,
)
from pnetviz.draw.ratio import (  # noqa: F401
    RATIO_HEIGHT, RATIO_GAP, RATIO_MARGINS, RATIO_TEXT, RATIO_MAX_DIGITS, ratio_pad_margins,
    ratio_figure,
)
from pnetviz.draw.matrices import (  # noqa: F401
    MATRIX_SIZE, MATRIX_LABEL_SIZE, BIN_LABEL_SIZE, CONTEXT_SIZE, MATRIX_MARGINS, matrix_figure, context_line,
    place_palette, PALETTE_DROP, cms_label_above, PALETTE_EXEC, palette_exec, paint, palette_set,
    UNDEFINED_CELL, add_matrix, TITLE_STEP, TITLE_DESCENT, TITLE_HEIGHT, LABEL_GAP, TILT_LIMIT,
    fit_class_labels, CONTEXT_BAND,
)
from pnetviz.draw.primitives import (  # noqa: F401
    add_graph, add_error_points, add_band, unclipped_band, add_points, add_hist, label_frame_bins, add_bars, LINE_PIECES,
    add_line, add_legend, add_text, save,
)
