"""Input checks shared by every metric.

The metric modules call these helpers first and then do arithmetic on clean,
immutable copies, so that the maths never has to guess what a caller meant.
Every failure is a ``TypeError`` (wrong kind of object) or a ``ValueError``
(right kind, impossible value) whose message names the argument.

The checks are grouped by what they check, one module each:

``messages``
    how a message shows a value (``show``) and its did-you-mean hint;
``options``
    keyword arguments: ``k``, choices among names, counts, probabilities,
    seeds, gains and the other options;
``ids``
    id kinds, missing ids and id columns;
``lists``
    one ranked list and its truth (the per-list metrics' inputs);
``columns``
    the columns of a table and its value column;
``arrays``
    numeric arrays, their ranges and their alignment.

Every name importers use is re-exported here, so ``from ._validation import
check_k`` keeps working wherever it is written; a test that replaces a
helper must replace it in the module that looks it up.
"""

from .messages import (
    did_you_mean,
    show,
)
from .options import (
    EMPTY_POLICIES,
    check_bool,
    check_choice,
    check_count,
    check_empty,
    check_gain,
    check_k,
    check_min_grade,
    check_n_jobs,
    check_open_unit,
    check_real,
    check_relevance_level,
    check_rng,
    check_score_threshold,
    check_trec_eval_version,
    TREC_EVAL_VERSIONS,
    check_truncate,
    handle_empty,
)
from .ids import (
    ID_KINDS,
    check_id_column,
    check_same_id_kind,
    check_same_kind,
    common_ints,
    dtype_name,
    first_missing,
    id_array,
    ids_kind,
    kind_words,
    kinds_differ,
    mixed_ids,
)
from .lists import (
    _as_python_id,
    check_grade,
    check_parallel_lists,
    check_recommended,
    check_relevant,
    id_list,
)
from .columns import (
    check_column_names,
    check_frame_columns,
    check_value_column,
)
from .arrays import (
    check_binary_labels,
    check_distribution_rows,
    check_int_array,
    check_probabilities,
    check_real_array,
    check_real_matrix,
    check_same_length,
    check_same_users,
    check_scores,
    check_user_index,
)
