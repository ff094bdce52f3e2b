"""``RebelClassifier``: the scikit-learn estimator around the REBEL engine.

Parameters are validated in ``fit``; fitted state is plain ndarrays (picklable, JSON-able). All prediction goes
through the compiled tree evaluation on raw features (``x > tau`` goes right), so a model predicts exactly what
it computed during training.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from . import fit_options as fo
from . import kernels as kern
from . import table_input
from ._threading import parallel_guard
from .binning import BINNED_PREDICT_MAX, binned_scores
from .columns import feature_of
from .costs import label_indices, uniform_costs, validate_cost_matrix, validate_sample_cost
from .fitting import _both, train, weighted_cost_rows
from .init_params import store_params
from .labels import _all_integers, labels_as_written
from .params import (
    MIN_SAMPLES_LEAF,
    N_ITER_NO_CHANGE,
    check_choice,
    check_float,
    check_n_classes,
    check_param,
    check_variant_only,
)


def posterior_from_scores(H: np.ndarray, loss: str = "exp") -> np.ndarray:
    """Posterior estimate under 0-1 costs, the population minimiser the loss implies, normalised over k:
    ``sigma(2 H_k)`` for the exp loss (Friedman, Hastie & Tibshirani 2000), ``sigma(H_k)`` for the logistic loss.
    H: (..., K) scores; returns the same shape."""
    factor = 2.0 if loss == "exp" else 1.0
    p = 1.0 / (1.0 + np.exp(-factor * np.clip(H, -700 / factor, 700 / factor)))
    return p / p.sum(axis=-1, keepdims=True)


def _as_decision(H: np.ndarray) -> np.ndarray:
    """scikit-learn's decision values from scores H (N, K): the margin ``H[:, 1] - H[:, 0]`` for K = 2 (positive
    favours ``classes_[1]``, zero is a tie, which ``predict`` gives to ``classes_[0]``), else H itself."""
    return H[:, 1] - H[:, 0] if H.shape[1] == 2 else H


class RebelClassifier(ClassifierMixin, BaseEstimator):
    """Multi-class cost-sensitive boosting that estimates the minimum-risk class (REBEL).

    Parameters
    ----------
    cost_matrix : array-like (K, K) or None
        ``C[i, j]`` is the cost of predicting ``classes_[j]`` when the truth is ``classes_[i]`` (classes in sorted
        order). ``None`` means 0-1 costs.
    n_estimators : int
        Number of boosting rounds T.
    max_depth : int
        Depth D of each weak learner (1 = stumps), grown greedily layer by layer (paper Sec. 4).
    n_thresholds : int
        Candidate thresholds per feature (1..255; the paper uses about 200).
    binning : {"uniform", "quantile"}
        ``uniform``: evenly spaced over the training range (paper footnote 1).
    random_state : None or int
        Seeds the validation split of early stopping, the only random step; otherwise training is deterministic.
    loss : {"exp", "logistic"}
        F of the paper's loss family (Eq. 1). ``exp`` (paper): closed-form steps. ``logistic``: F(x) = ln(1 + e^x)
        with Newton steps and a line search (DESIGN.md "Variants").
    leaves : {"binary", "vector"}
        ``binary`` (paper): each round adds f(x) a with f in {-1, +1}. ``vector``: each leaf has its own K-vector.
    learning_rate : float in (0, 1]
        Shrinks every round's step (1 = the paper's full step; a0 is never shrunk).
    n_iter_no_change : None or int
        Early stopping: hold out ``validation_fraction`` of the training rows and stop when the validation cost
        has not dropped for this many rounds; the model keeps the rounds up to its lowest validation cost.
        ``None`` (default) trains every round on every row.
    validation_fraction : float in (0, 1)
        Share of rows held out when ``n_iter_no_change`` is set.
    l2_regularization : float >= 0
        Variants only: added to the hessian (the denominator) of every leaf value and split gain, as scikit-learn's
        HistGradientBoosting ``l2_regularization`` and LightGBM's ``lambda_l2``, in units of the largest cost
        (scaling every cost leaves the model unchanged). With the exp loss the leaf step minimises the leaf's
        weight plus ``l2 v^2 / 2`` (DESIGN.md "Variants"). 0 (default): none.
    min_samples_leaf : int >= 1
        Variants only: a split is taken only if it leaves each side at least this many training rows (or none)
        (LightGBM's ``min_data_in_leaf``). 1 (default): no constraint.
    categorical_features : "from_dtype", None, bool mask, indices or names
        As HistGradientBoosting's: "from_dtype" takes a DataFrame's ``category`` and text columns. Each category
        is a one-vs-rest split candidate; NaN in a numeric feature gets a learned side per split
        (``rebel.columns``). Numeric X without NaN trains exactly as before.
    class_weight : None, "balanced" or dict
        Multiplies each row's costs by its class's weight (with ``sample_weight``, the product).
    n_jobs : None or int
        The engine's threads during fit and predict (None: numba's count; -1: every core).
    verbose : int
        0: silent; 1: about ten progress lines a fit; 2: one a round.
    importance_type : {"split", "gain"}
        What ``feature_importances_`` measures (``rebel.fit_options.importances``).

    The defaults (exp, binary, 1.0, no early stopping, 0.0, 1) are paper mode, bit-identical to the paper's
    algorithm; paper mode refuses ``l2_regularization`` and ``min_samples_leaf`` away from their defaults.

    Attributes
    ----------
    classes_ : ndarray (K,)
        Class labels in sorted order, as written in y (integers beyond int64 stay exact Python ints).
    n_features_in_, feature_names_in_ : int, ndarray
        As in scikit-learn (names only when X had string column names).
    cost_matrix_ : ndarray (K, K)
        The validated cost matrix (aligned to ``classes_`` when given as a labelled DataFrame), in the units
        given; training may scale costs by a power of two internally (only ratios matter), never this.
    thresholds_, feature_usable_ : ndarray (d, n_thresholds), ndarray (d,)
        Per engine column (d', W) and (d',) when X had NaN or categorical features (``rebel.columns``).
    is_categorical_, categories_, columns_source_, columns_kind_, columns_code_, tree_columns_
        Only when X had NaN or categorical features: the categorical mask (d,), each categorical feature's
        categories (None for numeric ones), the engine columns (``rebel.columns.Columns``) and the engine column
        each node tests (``tree_features_`` then holds the feature it comes from).
    a0_ : ndarray (K,)
    tree_features_, tree_thr_idx_, tree_thresholds_ : ndarray (T, 2^D - 1)
    tree_leaf_signs_ : ndarray (T, 2^D)
    a_ : ndarray (T, K)
    train_loss_, train_risk_ : ndarray (T + 1,)
        Index 0 is after a0; in the units of the given costs.
    layer_loss_ : ndarray (T, D)
        With a learning rate below 1 on exp/binary, each layer's full (unshrunk) step.
    n_estimators_ : int
    tree_leaf_values_ : ndarray (T, 2^D, K)
        Vector leaves only.
    validation_cost_ : ndarray (T + 1,)
        With early stopping only.
    feature_importances_ : ndarray (d,)
        The share of all tree splits that test each feature (split counts over every round's tree, normalised
        to sum to 1).

    Notes
    -----
    ``decision_function`` follows scikit-learn: for K = 2 it returns the margin ``H_2 - H_1`` (N,), positive
    where the model favours ``classes_[1]``; for K > 2 the scores H (N, K). The paper's K-vector scores for every
    K are ``risk_scores(X)`` (and ``staged_risk_scores``).
    """

    def __init__(
        self,
        cost_matrix=None,
        n_estimators=100,
        max_depth=1,
        n_thresholds=200,
        binning="uniform",
        random_state=None,
        loss="exp",
        leaves="binary",
        learning_rate=1.0,
        n_iter_no_change=None,
        validation_fraction=0.1,
        l2_regularization=0.0,
        min_samples_leaf=1,
        categorical_features="from_dtype",
        class_weight=None,
        n_jobs=None,
        verbose=0,
        importance_type="split",
    ):
        store_params(self, locals())

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        """Every limit comes from the one table in ``rebel.params``; returns the checked options."""
        opts = {
            name: check_param(name, getattr(self, name))
            for name in ("n_estimators", "max_depth", "n_thresholds")
        }
        opts.update({name: check_choice(name, getattr(self, name)) for name in ("binning", "loss", "leaves")})
        opts.update(
            {
                name: check_float(name, getattr(self, name))
                for name in ("learning_rate", "validation_fraction", "l2_regularization")
            }
        )
        opts["min_samples_leaf"] = MIN_SAMPLES_LEAF.check(self.min_samples_leaf)
        check_variant_only(opts["loss"], opts["leaves"], opts)
        stop = self.n_iter_no_change
        opts["n_iter_no_change"] = None if stop is None else N_ITER_NO_CHANGE.check(stop)
        opts["random_state"] = self.random_state
        return opts

    def fit(self, X, y, sample_cost=None, callback=None, sample_weight=None):
        """Train on X (N, d) and labels y (N,).

        ``sample_cost`` (N, K) gives example-dependent costs: row n replaces ``cost_matrix[y_n]`` in training.
        ``callback(t, info)`` runs after a0 (t = 0) and after every round (info: loss, risk, a, tree); returning
        ``False`` stops training early. ``sample_weight`` (N,) multiplies each row's costs (hence its loss).
        """
        opts = self._check_params()
        verbose = fo.check_verbose(self.verbose)
        fo.thread_count(self.n_jobs)  # n_jobs checked before any work
        y = labels_as_written(y)
        X, y, columns = table_input.fit_input(self, X, y)
        if y.dtype != object or not _all_integers(y):  # big integers (object) are discrete already
            kind = type_of_target(y, input_name="y")
            if kind not in ("binary", "multiclass"):
                raise ValueError(
                    f"Unknown label type: {kind}. y must hold class labels (whole numbers or text), one per row "
                    f"of X; got values such as {y.reshape(-1)[0]!r}. Bin or round real-valued targets into classes."
                )
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        y_idx = y_idx.reshape(-1)
        n_classes = check_n_classes(self.classes_.shape[0], "y")  # also keeps staged int16 indices in range
        if n_classes < 2:
            raise ValueError(
                f"y has only one class ({self.classes_[0]!r}); a classifier needs at least 2 classes. "
                "Add samples of another class."
            )
        if self.cost_matrix is None:
            self.cost_matrix_ = uniform_costs(n_classes)
        else:
            self.cost_matrix_ = validate_cost_matrix(
                self.cost_matrix, n_classes=n_classes, classes=self.classes_
            )
        if sample_cost is not None:
            cost_rows = validate_sample_cost(sample_cost, X.shape[0], n_classes, classes=self.classes_)
        else:
            cost_rows = self.cost_matrix_[y_idx]
        self._uses_sample_cost = sample_cost is not None
        sample_weight = fo.class_sample_weight(self.class_weight, y_idx, self.classes_, sample_weight)
        cost_rows = weighted_cost_rows(cost_rows, sample_weight, X.shape[0])

        progress = fo.Progress(verbose, opts["n_estimators"]) if verbose else None
        with fo.engine_threads(self.n_jobs):
            fitted = train(
                X, y_idx, cost_rows, opts, _both(callback, progress), sample_weight,
                table_input.column_thresholds(columns),
            )  # fmt: skip
        if progress is not None:
            progress.close()
        res = fitted.result
        self.thresholds_, self.feature_usable_ = fitted.thresholds, fitted.usable
        self.a0_ = res.a0
        self.tree_features_ = feature_of(columns, res.features)
        self.tree_thr_idx_ = res.thr_idx
        self.tree_thresholds_ = self.thresholds_[res.features, res.thr_idx - 1]
        self.tree_leaf_signs_ = res.leaf_signs
        self.a_ = res.A
        self.train_loss_ = res.train_loss
        self.train_risk_ = res.train_risk
        self.layer_loss_ = res.layer_loss
        self.n_estimators_ = res.A.shape[0]
        self.loss_, self.leaves_ = opts["loss"], opts["leaves"]
        for name, value in (
            ("tree_leaf_values_", res.leaf_values),
            ("validation_cost_", fitted.validation_cost),
            ("tree_columns_", None if columns is None else res.features),
        ):
            if value is not None:
                setattr(self, name, value)
            elif hasattr(self, name):
                delattr(self, name)
        return self

    # --------------------------------------------------------------- prediction
    @property
    def depth_(self) -> int:
        check_is_fitted(self)
        return int(np.log2(self.tree_leaf_signs_.shape[1]))

    def _validate_X(self, X):
        """The engine's X for prediction: X validated, with the columns of a table with NaN or categories."""
        check_is_fitted(self)
        return table_input.predict_input(self, X)

    @property
    def _tree_columns(self) -> np.ndarray:
        """The engine column each node tests (the feature itself unless the model has ``tree_columns_``)."""
        return getattr(self, "tree_columns_", self.tree_features_)

    def _predict_blocks(self, X, scores, staged):
        """The one path of all prediction: ``kern.predict_blocks`` (binary leaves) or
        ``kern.predict_leaf_values`` (vector leaves) fills ``scores`` (N, K) and/or ``staged`` (T + 1, N) int16,
        whichever is not empty. Small binary-leaf scores (at most BINNED_PREDICT_MAX rows times rounds) come
        from ``binned_scores`` instead, with the same bits: a first predict then compiles nothing."""
        with fo.engine_threads(self.n_jobs):
            self._predict_on_threads(X, scores, staged)

    def _predict_on_threads(self, X, scores, staged):
        work = X.shape[0] * self.n_estimators_ * self.depth_
        trees = (self.a0_, self._tree_columns, self.tree_thresholds_)
        if (
            not self._vector
            and staged.shape[0] == 0
            and X.shape[0] * self.n_estimators_ <= BINNED_PREDICT_MAX
            and X.size < kern.PARALLEL_MIN_WORK
        ):  # small: on bin codes, through the kernels a fit compiled (the same bits, nothing to compile)
            binned = binned_scores(X, *trees, self.tree_leaf_signs_, self.a_, self.depth_)
            if binned is not None:
                scores[:] = binned
                return
        if self._vector:
            kernel = kern.pick(kern.predict_leaf_values, kern.predict_leaf_values_serial, work)
            model = (*trees, self.tree_leaf_values_, self.depth_)
        else:
            kernel = kern.pick(kern.predict_blocks, kern.predict_blocks_serial, work)
            model = (*trees, self.tree_leaf_signs_, self.a_, self.depth_)
        with parallel_guard():
            kernel(X, *model, scores, staged)

    @property
    def _vector(self) -> bool:
        return hasattr(self, "tree_leaf_values_")

    def risk_scores(self, X):
        """The paper's scores H(x) = a0 + sum_t f_t(x) a_t (Eq. 3), shape (N, K) for every K (K = 2 included);
        the prediction is their argmax, the estimated minimum-risk class."""
        X = self._validate_X(X)
        scores = np.empty((X.shape[0], self.a0_.shape[0]))
        self._predict_blocks(X, scores, np.empty((0, 0), dtype=np.int16))
        return scores

    def decision_function(self, X):
        """scikit-learn's decision values: for K = 2 the margin ``H_2 - H_1`` (N,), positive where the model
        favours ``classes_[1]``; for K > 2 the scores H (N, K) of ``risk_scores``."""
        return _as_decision(self.risk_scores(X))

    def staged_risk_scores(self, X, include_bias=False):
        """Yield H after each round t = 1..n_estimators_ (arrays of shape (N, K)); with ``include_bias`` first
        the scores at t = 0 (a0 alone), so T + 1 arrays.

        Holds one round's weak-learner outputs at a time (N bytes), whatever the number of rounds.
        """
        X = self._validate_X(X)
        f = np.empty((X.shape[0], 1), dtype=np.int8)
        tree_outputs = kern.pick(kern.tree_outputs, kern.tree_outputs_serial, X.shape[0] * self.depth_)
        H = np.broadcast_to(self.a0_, (X.shape[0], self.a0_.shape[0])).copy()
        if include_bias:
            yield H.copy()
        if self._vector:
            yield from self._staged_vector_scores(X, H)
            return
        for t in range(self.n_estimators_):
            with parallel_guard():
                tree_outputs(
                    X,
                    self._tree_columns[t : t + 1],
                    self.tree_thresholds_[t : t + 1],
                    self.tree_leaf_signs_[t : t + 1],
                    self.depth_,
                    f,
                )
            H += f * self.a_[t]
            yield H.copy()

    def staged_decision_function(self, X, include_bias=False):
        """Yield ``decision_function``'s values after each round (the margin (N,) for K = 2, else H (N, K));
        ``include_bias`` as in ``staged_risk_scores``."""
        for H in self.staged_risk_scores(X, include_bias=include_bias):
            yield _as_decision(H)

    def _staged_vector_scores(self, X, H):
        leaves = np.empty((X.shape[0], 1), dtype=np.int32)
        kernel = kern.pick(kern.tree_leaves, kern.tree_leaves_serial, X.shape[0] * self.depth_)
        for t in range(self.n_estimators_):
            with parallel_guard():
                kernel(
                    X, self._tree_columns[t : t + 1], self.tree_thresholds_[t : t + 1], self.depth_, leaves
                )
            H += self.tree_leaf_values_[t][leaves[:, 0]]
            yield H.copy()

    def apply(self, X):
        """Leaf id (0 .. 2^D - 1, heap order left to right) of every row in every round's tree: (N, T) int32."""
        X = self._validate_X(X)
        out = np.empty((X.shape[0], self.n_estimators_), dtype=np.int32)
        kernel = kern.pick(kern.tree_leaves, kern.tree_leaves_serial, out.size * self.depth_)
        with parallel_guard():
            kernel(X, self._tree_columns, self.tree_thresholds_, self.depth_, out)
        return out

    def weak_learner_outputs(self, X):
        """The weak learners' outputs f_t(x) in {-1, +1} for every row and round: (N, T) int8 (binary leaves)."""
        X = self._validate_X(X)
        if self._vector:
            raise ValueError(
                "a model with leaves='vector' adds a K-vector per leaf, not f_t(x) a_t with f_t in {-1, +1}; use "
                "apply(X) for the leaf ids and tree_leaf_values_ for the steps."
            )
        out = np.empty((X.shape[0], self.n_estimators_), dtype=np.int8)
        kernel = kern.pick(kern.tree_outputs, kern.tree_outputs_serial, out.size * self.depth_)
        with parallel_guard():
            kernel(X, self._tree_columns, self.tree_thresholds_, self.tree_leaf_signs_, self.depth_, out)
        return out

    def predict(self, X):
        """The estimated minimum-risk class argmax_k H_k(x) (ties to the first class)."""
        scores = self.risk_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def staged_predict(self, X):
        """Yield the predicted classes after each round t = 1..n_estimators_."""
        for idx in self.staged_class_indices(X)[1:]:
            yield self.classes_[idx]

    def staged_class_indices(self, X):
        """Class index argmax_k H_t(x) for t = 0 (a0 only) .. n_estimators_: array (T + 1, N), fast."""
        X = self._validate_X(X)
        staged = np.empty((self.n_estimators_ + 1, X.shape[0]), dtype=np.int16)
        self._predict_blocks(X, np.empty((0, 0)), staged)
        return staged

    def _label_indices(self, y):
        return label_indices(y, self.classes_, "that label was not seen in training")

    def expected_cost(self, X, y):
        """Mean cost C[y, prediction] of the model's predictions on (X, y) under ``cost_matrix_``."""
        pred = np.argmax(self.risk_scores(X), axis=1)
        y_idx = self._label_indices(y)
        if y_idx.shape[0] != pred.shape[0]:
            raise ValueError(
                f"X has {pred.shape[0]} rows but y has {y_idx.shape[0]} labels; give one per row."
            )
        return float(self.cost_matrix_[y_idx, pred].mean())

    def _check_uniform_costs(self):
        check_is_fitted(self)
        C = self.cost_matrix_
        off = C[~np.eye(C.shape[0], dtype=bool)]
        if self._uses_sample_cost or np.any(np.diag(C) != 0) or not np.all(off == off[0]):
            raise AttributeError(
                "predict_proba is only defined for 0-1 costs: a cost-sensitive REBEL model estimates the "
                "minimum-risk class, not posteriors. Fit with cost_matrix=None to get posteriors, or use "
                "risk_scores for the scores H."
            )

    @property
    def predict_proba(self):
        """Posterior estimate under 0-1 costs, as the loss implies (``posterior_from_scores``): sigma(2 H_k) for
        the exp loss, sigma(H_k) for the logistic loss, normalised over k.

        Exists only on models fitted with 0-1 costs (``hasattr`` is False otherwise, as scikit-learn expects).
        """
        self._check_uniform_costs()
        return self._predict_proba

    def _predict_proba(self, X):
        return posterior_from_scores(self.risk_scores(X), getattr(self, "loss_", "exp"))

    @property
    def predict_log_proba(self):
        """Natural log of ``predict_proba`` (same existence rule: models fitted with 0-1 costs only)."""
        self._check_uniform_costs()
        return self._predict_log_proba

    def _predict_log_proba(self, X):
        return np.log(self._predict_proba(X))

    @property
    def feature_importances_(self) -> np.ndarray:
        """Per feature (in the order of ``feature_names_in_`` when X had names), normalised to sum to 1 (all
        zeros without rounds): ``importance_type="split"`` the share of all internal nodes of every round's tree
        that test it, ``"gain"`` its share of the training loss's decrease (``rebel.fit_options.split_gains``)."""
        check_is_fitted(self)
        return fo.importances(self, self.importance_type)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        return tags
