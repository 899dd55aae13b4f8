/*
 * test_expr_parse.c - the expression parser and checker: tables of
 * (kind, expression, names, values) -> canonical tree or exact error message.
 *
 * Every message below is DynamoDB's; the comment above each group says where
 * the text was recorded (dynalite's tests against AWS, scylladb test/alternator,
 * real responses quoted in public code, DynamoDB Local's own validator).
 * Trees are printed fully parenthesized ("((a = :v) AND (b < :w))") so that a
 * row shows precedence and associativity; printing a tree and parsing the text
 * again must give the same tree (the round-trip test).
 */
#include "storage/expr/expr.h"
#include "storage/expr/expr_ast.h"
#include "storage/tests/check.h"
#include "storage/tests/expr_test_util.h"

#include <stdlib.h>
#include <string.h>

/* ---- a canonical printer ---- */

static void put(struct text_buf *sb, const char *s)
{
    text_buf_add(sb, s, strlen(s));
}

static void print_path(struct text_buf *sb, const struct expr_path *p)
{
    for (size_t i = 0; i < p->count; i++) {
        const struct expr_path_elem *el = &p->elems[i];
        if (el->is_index) {
            char buf[24];
            snprintf(buf, sizeof buf, "[%u]", el->index);
            put(sb, buf);
            continue;
        }
        if (i) put(sb, ".");
        if (el->is_ref)
            text_buf_add(sb, el->text, el->text_len);
        else
            text_buf_add(sb, el->name, el->name_len);
    }
}

static void print_node(struct text_buf *sb, const struct expr_node *n)
{
    switch (n->kind) {
    case EN_PATH: print_path(sb, &n->path); return;
    case EN_VALUE: text_buf_add(sb, n->ref, n->ref_len); return;
    case EN_OP: break;
    }
    if (n->op >= OP_FUNC_UNKNOWN) {
        text_buf_add(sb, n->ref, n->ref_len);
        put(sb, "(");
        for (size_t i = 0; i < n->argc; i++) {
            if (i) put(sb, ", ");
            print_node(sb, n->args[i]);
        }
        put(sb, ")");
        return;
    }
    put(sb, "(");
    switch (n->op) {
    case OP_NOT:
        put(sb, "NOT ");
        print_node(sb, n->args[0]);
        break;
    case OP_BETWEEN:
        print_node(sb, n->args[0]);
        put(sb, " BETWEEN ");
        print_node(sb, n->args[1]);
        put(sb, " AND ");
        print_node(sb, n->args[2]);
        break;
    case OP_IN:
        print_node(sb, n->args[0]);
        put(sb, " IN (");
        for (size_t i = 1; i < n->argc; i++) {
            if (i > 1) put(sb, ", ");
            print_node(sb, n->args[i]);
        }
        put(sb, ")");
        break;
    default:
        print_node(sb, n->args[0]);
        put(sb, " ");
        put(sb, expr_op_name(n->op));
        put(sb, " ");
        print_node(sb, n->args[1]);
        break;
    }
    put(sb, ")");
}

static const char *const SECTION[] = {"SET", "REMOVE", "ADD", "DELETE"};

/* The canonical text of a parsed expression, in a static buffer. */
static const char *print_expr(const struct expr *e)
{
    static char out[8192];
    struct text_buf sb = {0};

    put(&sb, "");
    switch (e->kind) {
    case EXPR_CONDITION:
    case EXPR_KEY_CONDITION: print_node(&sb, e->root); break;
    case EXPR_PROJECTION:
        for (size_t i = 0; i < e->path_count; i++) {
            if (i) put(&sb, ", ");
            print_path(&sb, &e->paths[i]);
        }
        break;
    case EXPR_UPDATE:
        for (size_t s = 0; s < e->section_count; s++) {
            const struct expr_section *sec = &e->sections[s];
            if (s) put(&sb, " ");
            put(&sb, SECTION[sec->kind]);
            for (size_t i = sec->first; i < sec->first + sec->count; i++) {
                const struct expr_action *a = &e->actions[i];
                put(&sb, i == sec->first ? " " : ", ");
                print_path(&sb, &a->path);
                if (a->kind == ACT_SET)
                    put(&sb, " = ");
                else if (a->value)
                    put(&sb, " ");
                if (a->value) print_node(&sb, a->value);
            }
        }
        break;
    }
    snprintf(out, sizeof out, "%s", sb.data);
    free(sb.data);
    return out;
}

/* ---- the table ---- */

#define C EXPR_CONDITION
#define U EXPR_UPDATE
#define P EXPR_PROJECTION
#define K EXPR_KEY_CONDITION

struct parse_case {
    enum expr_kind kind;
    const char *text;
    const char *names;  /* literal map or NULL */
    const char *values; /* literal map or NULL */
    const char *tree;   /* expected canonical text, when the parse succeeds */
    const char *error;  /* expected message, when it fails */
};

static const char *param_of(enum expr_kind kind)
{
    switch (kind) {
    case EXPR_CONDITION: return "ConditionExpression";
    case EXPR_UPDATE: return "UpdateExpression";
    case EXPR_PROJECTION: return "ProjectionExpression";
    case EXPR_KEY_CONDITION: return "KeyConditionExpression";
    }
    return "";
}

static void run_cases(const struct parse_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct parse_case *c = &cases[i];
        struct value names, values;
        char msg[4096];
        struct expr *e = parse_lit(c->kind, param_of(c->kind), c->text, c->names, c->values, &names,
                                   &values, msg, sizeof msg);
        if (c->error) {
            if (e || strcmp(msg, c->error) != 0) fprintf(stderr, "case %zu: %s\n", i, c->text);
            CHECK(e == NULL);
            CHECK_STR_EQ(msg, c->error);
        } else {
            if (!e) fprintf(stderr, "case %zu: %s -> %s\n", i, c->text, msg);
            CHECK(e != NULL);
            if (e && c->tree) {
                if (strcmp(print_expr(e), c->tree) != 0) fprintf(stderr, "case %zu\n", i);
                CHECK_STR_EQ(print_expr(e), c->tree);
            }
        }
        expr_free(e);
        value_clear(&names);
        value_clear(&values);
    }
}

#define RUN_TABLE(t) run_cases(t, sizeof(t) / sizeof((t)[0]))

/* ---- trees: precedence, associativity, every construct ---- */

static void test_condition_trees_show_precedence_and_associativity(void)
{
    static const char V[] = "{\":v\": 1, \":w\": 2, \":x\": 3}";
    static const char V2[] = "{\":v\": 1, \":w\": 2}";
    static const struct parse_case cases[] = {
        {C, "a = :v", NULL, "{\":v\": 1}", "(a = :v)", NULL},
        {C, "a <> :v", NULL, "{\":v\": 1}", "(a <> :v)", NULL},
        {C, "a<:v", NULL, "{\":v\": 1}", "(a < :v)", NULL},
        {C, "a <= :v", NULL, "{\":v\": 1}", "(a <= :v)", NULL},
        {C, "a>:v", NULL, "{\":v\": 1}", "(a > :v)", NULL},
        {C, "a >= :v", NULL, "{\":v\": 1}", "(a >= :v)", NULL},
        /* AND binds tighter than OR; NOT tighter than AND; both nest to the right */
        {C, "a = :v OR b = :w AND c = :x", NULL, V, "((a = :v) OR ((b = :w) AND (c = :x)))", NULL},
        {C, "a = :v AND b = :w OR c = :x", NULL, V, "(((a = :v) AND (b = :w)) OR (c = :x))", NULL},
        {C, "a = :v AND b = :w AND c = :x", NULL, V, "((a = :v) AND ((b = :w) AND (c = :x)))",
         NULL},
        {C, "a = :v OR b = :w OR c = :x", NULL, V, "((a = :v) OR ((b = :w) OR (c = :x)))", NULL},
        {C, "NOT a = :v AND b = :w", NULL, V2, "((NOT (a = :v)) AND (b = :w))", NULL},
        {C, "NOT NOT a = :v", NULL, "{\":v\": 1}", "(NOT (NOT (a = :v)))", NULL},
        {C, "(a = :v OR b = :w) AND c = :x", NULL, V, "(((a = :v) OR (b = :w)) AND (c = :x))",
         NULL},
        {C, "NOT (a = :v OR b = :w)", NULL, V2, "(NOT ((a = :v) OR (b = :w)))", NULL},
        /* BETWEEN's AND is not the logical AND */
        {C, "a BETWEEN :v AND :w AND b = :x", NULL, V, "((a BETWEEN :v AND :w) AND (b = :x))",
         NULL},
        {C, "a IN (:v, :w, :x) OR b IN (:v)", NULL, V, "((a IN (:v, :w, :x)) OR (b IN (:v)))",
         NULL},
        /* keywords in any case, whitespace anywhere (scylla
           test_key_condition_expression_case_insensitive) */
        {C, "a between :v aNd :w oR nOt b in (:x)", NULL, V,
         "((a BETWEEN :v AND :w) OR (NOT (b IN (:x))))", NULL},
        {C, "  a\t=\n:v\r ", NULL, "{\":v\": 1}", "(a = :v)", NULL},
        /* one pair of parentheses is fine at every level */
        {C, "(a = :v)", NULL, "{\":v\": 1}", "(a = :v)", NULL},
        {C, "((a = :v) AND (b = :w))", NULL, V2, "((a = :v) AND (b = :w))", NULL},
        {C, "(a) = (:v)", NULL, "{\":v\": 1}", "(a = :v)", NULL},
        /* functions, paths, names */
        {C, "attribute_exists(a.b[2].#c)", "{\"#c\": \"c\"}", NULL, "attribute_exists(a.b[2].#c)",
         NULL},
        {C, "attribute_not_exists(a) AND begins_with(b, :v)", NULL, "{\":v\": \"x\"}",
         "(attribute_not_exists(a) AND begins_with(b, :v))", NULL},
        {C, "contains(a, :v) OR attribute_type(b, :t)", NULL, "{\":v\": 1, \":t\": \"S\"}",
         "(contains(a, :v) OR attribute_type(b, :t))", NULL},
        {C, "size(a) > :v", NULL, "{\":v\": 1}", "(size(a) > :v)", NULL},
        {C, "size(size(a)) > :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: size, operand type: N"},
        {C, "a[0][1].b = :v", NULL, "{\":v\": 1}", "(a[0][1].b = :v)", NULL},
        {C, "#A_1 = :_", "{\"#A_1\": \"x\"}", "{\":_\": 1}", "(#A_1 = :_)", NULL},
        {C, "#1 = :1", "{\"#1\": \"x\"}", "{\":1\": 1}", "(#1 = :1)", NULL},
        /* a reserved word behind a #name is fine */
        {C, "#s = :v", "{\"#s\": \"status\"}", "{\":v\": 1}", "(#s = :v)", NULL},
    };
    RUN_TABLE(cases);
}

static void test_update_and_projection_trees(void)
{
    static const char V2[] = "{\":v\": 1, \":s\": <<\"a\">>}";
    static const struct parse_case cases[] = {
        {U, "SET a = :v", NULL, "{\":v\": 1}", "SET a = :v", NULL},
        {U, "set a = :v, b = a", NULL, "{\":v\": 1}", "SET a = :v, b = a", NULL},
        {U, "SET a = b + :v", NULL, "{\":v\": 1}", "SET a = (b + :v)", NULL},
        {U, "SET a = b-:v", NULL, "{\":v\": 1}", "SET a = (b - :v)", NULL},
        {U, "SET a = (b + :v)", NULL, "{\":v\": 1}", "SET a = (b + :v)", NULL},
        {U, "SET a = if_not_exists(a, :v) + :v", NULL, "{\":v\": 1}",
         "SET a = (if_not_exists(a, :v) + :v)", NULL},
        {U, "SET a = list_append(if_not_exists(a, :w), :w)", NULL, "{\":w\": [1]}",
         "SET a = list_append(if_not_exists(a, :w), :w)", NULL},
        {U, "REMOVE a, b[1], c.d", NULL, NULL, "REMOVE a, b[1], c.d", NULL},
        {U, "ADD a :v, b :s DELETE c :s", NULL, V2, "ADD a :v, b :s DELETE c :s", NULL},
        /* sections in any order, keywords in any case (scylla test_update_expression_action_case)
         */
        {U, "sEt a = :v remove b add c :v delete d :s", NULL, V2,
         "SET a = :v REMOVE b ADD c :v DELETE d :s", NULL},
        /* dynalite "should update nested attributes": parenthesized operands */
        {U, "set b.c=((c[1])+(b.a)),b.a = a", NULL, NULL, "SET b.c = (c[1] + b.a), b.a = a", NULL},
        /* "SET" itself may be an attribute name? No: it is a keyword token. */
        {P, "a, b.c, d[0], #e.f[2][3]", "{\"#e\": \"e\"}", NULL, "a, b.c, d[0], #e.f[2][3]", NULL},
        {P, "a.b, a.c", NULL, NULL, "a.b, a.c", NULL},
        {K, "p = :p AND begins_with(s, :s)", NULL, "{\":p\": \"x\", \":s\": \"y\"}",
         "((p = :p) AND begins_with(s, :s))", NULL},
    };
    RUN_TABLE(cases);
}

static void test_printed_trees_parse_back_to_themselves(void)
{
    static const struct {
        enum expr_kind kind;
        const char *text, *names, *values;
    } cases[] = {
        {C, "a = :v OR NOT b BETWEEN :v AND :w AND contains(c, :v)", NULL,
         "{\":v\": 1, \":w\": 2}"},
        {C, "(a < :v OR a IN (:v, :w)) AND size(#n.x[3]) >= :v", "{\"#n\": \"n\"}",
         "{\":v\": 1, \":w\": 2}"},
        {U, "SET a = list_append(:l, a), b = if_not_exists(b, :v) - :v REMOVE c[2] ADD d :v", NULL,
         "{\":v\": 1, \":l\": [1]}"},
        {P, "a.b[1], #c", "{\"#c\": \"c\"}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct value n1, v1, n2, v2;
        char msg[1024], first[8192];
        struct expr *e = parse_lit(cases[i].kind, param_of(cases[i].kind), cases[i].text,
                                   cases[i].names, cases[i].values, &n1, &v1, msg, sizeof msg);
        CHECK(e != NULL);
        if (!e) continue;
        snprintf(first, sizeof first, "%s", print_expr(e));
        struct expr *again = parse_lit(cases[i].kind, param_of(cases[i].kind), first,
                                       cases[i].names, cases[i].values, &n2, &v2, msg, sizeof msg);
        CHECK(again != NULL);
        if (again) CHECK_STR_EQ(print_expr(again), first);
        expr_free(e);
        expr_free(again);
        value_clear(&n1);
        value_clear(&v1);
        value_clear(&n2);
        value_clear(&v2);
    }
}

/* ---- syntax errors: token and "near", as AWS prints them ---- */

static void test_syntax_errors_quote_the_token_and_its_neighbours(void)
{
    static const struct parse_case cases[] = {
        /* Real AWS responses pinned in public emulators' tests */
        {P, "!!!", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Syntax error; token: \"!\", near: \"!!\""},
        {P, "a b", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\""},
        {P, "a,", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\""},
        {P, "#l[].#c", "{\"#l\": \"l\", \"#c\": \"c\"}", NULL, NULL,
         "Invalid ProjectionExpression: Syntax error; token: \"]\", near: \"[].\""},
        {C, "attribute_type()", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\""},
        {C, "#l[abc].#c = :v", "{\"#l\": \"l\", \"#c\": \"c\"}", "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"abc\", near: \"[abc]\""},
        {C, "#l[-1].#c = :v", "{\"#l\": \"l\", \"#c\": \"c\"}", "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"-\", near: \"[-1\""},
        {C, "contains (themes, :theme", NULL, "{\":theme\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":theme\""},
        /* scylla test_update_expression_name_token: names cannot start with _ or a digit */
        {U, "SET _123 = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"_\", near: \"SET _123\""},
        {U, "SET #l[0.#c = :v", "{\"#l\": \"l\", \"#c\": \"c\"}", "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \".\", near: \"0.#c\""},
        {U, "ADD numx", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"numx\""},
        {U, "DELETE setx", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"setx\""},
        {U, "SET note = :v +", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"+\""},
        {U, "SET numx = numx * :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"*\", near: \"numx * :v\""},
        {U, "SET numx = numx / :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"/\", near: \"numx / :v\""},
        {U, "ADD numx 1", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"1\", near: \"numx 1\""},
        {U, "DELETE setx a", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"a\", near: \"setx a\""},
        /* moto (recorded against AWS): a literal is not a value */
        {U, "SET path = VALUE 1", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"1\", near: \"VALUE 1\""},
        /* whitespace between the tokens is part of "near" */
        {C, "a   b", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"b\", near: \"a   b\""},
        {C, "a = ", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \""},
        {C, "  !a = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"  !a\""},
        /* an unterminated group: (((a = :v */
        {C, "(((a = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":v\""},
    };
    RUN_TABLE(cases);
}

/* dynalite test/scan.js and test/updateItem.js: these are all syntax errors
 * (dynalite checks the prefix only; the tokens here are ours, computed by the
 * furthest-failure rule). */
static void test_every_syntax_error_class(void)
{
    static const struct parse_case cases[] = {
        {C, "things are not gonna be ok", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"are\", near: \"things are not\""},
        {C, "a > 4", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"4\", near: \"> 4\""},
        {C, "attribute_exists(Pictures-RearView)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"-\", near: \"Pictures-RearView\""},
        {C, "attribute_exists(\"Pictures.RearView\")", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"\"Pictures.RearView\"\", near: "
         "\"(\"Pictures.RearView\")\""},
        {C, "attribute_exists(Pictures..RearView)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \".\", near: \"..RearView\""},
        {C, "a in b", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"b\", near: \"in b\""},
        {C, "a in (b,c,)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \")\", near: \",)\""},
        {C, "a > between", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"between\", near: \"> between\""},
        {C, "#$.b > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"#\", near: \"#$\""},
        {C, "a > :things.stuff", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \".\", near: \":things.stuff\""},
        {C, "b[:a] > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \":a\", near: \"[:a]\""},
        {C, "\xc3\xbc > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"\xc3\xbc\", near: \"\xc3\xbc >\""},
        {C, "size(a).b > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \".\", near: \").b\""},
        {C, "(size(a))[0] > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"[\", near: \")[0\""},
        {C, "a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"a\""},
        {C, "a = :v AND", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\""},
        {C, "a != :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"a !=\""},
        {C, "a = = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = :v\""},
        {C, "a[01] = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Syntax error; token: \"1\", near: \"01]\""},
        {U, "whatever", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"whatever\", near: \"whatever\""},
        {U, "set a", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"a\""},
        {U, "set a=set", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"set\", near: \"=set\""},
        {U, "remove a = b", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"=\", near: \"a = b\""},
        {U, "set :a = b", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \":a\", near: \"set :a =\""},
        {U, "set a[1] = 1", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"1\", near: \"= 1\""},
        {U, "set (a = (b + c))", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"(\", near: \"set (a\""},
        {U, "set a = (b.c).d + e", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \".\", near: \").d\""},
        {U, "set a = b + c + d", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"+\", near: \"c + d\""},
        {U, "SET c = if_not_exists(c, :v1+:v2)", NULL, "{\":v1\": 1, \":v2\": 2}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"+\", near: \":v1+:v2\""},
        {U, "SET a[:x] = :v", NULL, "{\":v\": 1, \":x\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \":x\", near: \"[:x]\""},
        {U, "SET # = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: Syntax error; token: \"#\", near: \"SET # =\""},
        {U, "SET a = :", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \":\", near: \"= :\""},
        {U, "SET a = _f(b)", NULL, NULL, NULL,
         "Invalid UpdateExpression: Syntax error; token: \"_\", near: \"= _f\""},
    };
    RUN_TABLE(cases);
}

/* ---- redundant parentheses, empty and oversized expressions ---- */

static void test_redundant_parentheses(void)
{
    static const char R[] =
        "Invalid ConditionExpression: The expression has redundant parentheses;";
    static const struct parse_case cases[] = {
        /* dynalite test/scan.js "should return ValidationException for redundant parentheses" */
        {C, "a=a and a > ((views))", NULL, NULL, NULL, R},
        {C, "(a)between(((b.c)).d)and(c)", NULL, NULL, NULL, R},
        {C, "a > whatever((:things), ((a)))", NULL, NULL, NULL, R},
        {C, "a=a AND ((a=a AND a=a)) AND a=a", NULL, NULL, NULL, R},
        {C, "a=a OR ((a=a OR a=a)) OR a=a", NULL, NULL, NULL, R},
        {C, "a=a AND ((a=a AND (a=a AND a=a)))", NULL, NULL, NULL, R},
        {C, "a=a OR ((a=a OR (a=a OR a=a)))", NULL, NULL, NULL, R},
        /* real AWS, pinned by public emulators */
        {C, "((attribute_not_exists(pk)))", NULL, NULL, NULL, R},
        {C, "((#n)) = :v", "{\"#n\": \"n\"}", "{\":v\": 1}", NULL, R},
        /* scylla test_key_condition_expression_parser */
        {K, "((c=:c) AND ((p=:p)))", NULL, "{\":c\": 1, \":p\": 2}", NULL,
         "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
        {U, "SET a = ((b + :v))", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: The expression has redundant parentheses;"},
        {U, "SET a = ((b))", NULL, NULL, NULL,
         "Invalid UpdateExpression: The expression has redundant parentheses;"},
        /* it is raised while parsing: it wins over errors further right... */
        {C, "((a = :v)) b", NULL, "{\":v\": 1}", NULL, R},
        /* ...but not over one to its left */
        {C, "a = = ((b))", NULL, NULL, NULL,
         "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = (\""},
        /* and it is checked before function names and reserved words */
        {C, "whatever(((a))) AND status = :v", NULL, "{\":v\": 1}", NULL, R},
    };
    RUN_TABLE(cases);
}

static void test_empty_and_oversized_expressions(void)
{
    static char big[4200], exact[4200], wide[4200];
    static const struct parse_case empty[] = {
        /* dynalite test/updateItem.js, scan.js */
        {U, "", NULL, NULL, NULL, "Invalid UpdateExpression: The expression can not be empty;"},
        {C, "", NULL, NULL, NULL, "Invalid ConditionExpression: The expression can not be empty;"},
        {P, "   ", NULL, NULL, NULL,
         "Invalid ProjectionExpression: The expression can not be empty;"},
        {K, "\n", NULL, NULL, NULL,
         "Invalid KeyConditionExpression: The expression can not be empty;"},
    };
    struct value n, v;
    char msg[8192];
    struct expr *e;

    RUN_TABLE(empty);
    /* 4096 UTF-16 units pass, 4097 do not (DynamoDB's MAX_EXPRESSION_SIZE; the
     * FilterExpression form with "expression size" is from a real response,
     * "...size: 5872"). */
    memset(big, 0, sizeof big);
    strcpy(big, "a = :v OR a = :v");
    while (strlen(big) < 4097)
        strcat(big, " ");
    big[4097] = '\0';
    e = parse_lit(C, "FilterExpression", big, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e == NULL);
    CHECK_STR_EQ(msg, "Invalid FilterExpression: Expression size has exceeded the maximum "
                      "allowed size; expression size: 4097");
    value_clear(&n);
    value_clear(&v);
    e = parse_lit(U, "UpdateExpression", big, NULL, NULL, &n, &v, msg, sizeof msg);
    CHECK_STR_EQ(msg, "Invalid UpdateExpression: Expression size has exceeded the maximum "
                      "allowed size;");
    value_clear(&n);
    value_clear(&v);
    memcpy(exact, big, 4096);
    exact[4096] = '\0';
    e = parse_lit(C, "FilterExpression", exact, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e != NULL);
    expr_free(e);
    value_clear(&n);
    value_clear(&v);
    /* a 4-byte UTF-8 character counts as two (Java String.length) */
    memset(wide, 0, sizeof wide);
    strcpy(wide, "a = :v AND ");
    while (strlen(wide) < 4092)
        strcat(wide, " ");
    strcat(wide, "\xF0\x9F\x98\x80"); /* 4092 + 2 units = 4094... */
    strcat(wide, "\xF0\x9F\x98\x80"); /* ... 4096: still fine in size, a syntax error */
    e = parse_lit(C, "FilterExpression", wide, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e == NULL);
    CHECK(strstr(msg, "Syntax error") != NULL);
    value_clear(&n);
    value_clear(&v);
    strcat(wide, "x");
    e = parse_lit(C, "FilterExpression", wide, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK_STR_EQ(msg, "Invalid FilterExpression: Expression size has exceeded the maximum "
                      "allowed size; expression size: 4097");
    value_clear(&n);
    value_clear(&v);
}

static void test_nesting_beyond_our_limit_is_a_syntax_error(void)
{
    static char text[4096];
    struct value n, v;
    char msg[8192];
    struct expr *e;
    size_t depth = EXPR_MAX_NESTING + 5;

    memset(text, '(', depth);
    strcpy(text + depth, "a");
    e = parse_lit(C, "ConditionExpression", text, NULL, NULL, &n, &v, msg, sizeof msg);
    CHECK(e == NULL);
    CHECK(strncmp(msg, "Invalid ConditionExpression: Syntax error; token: \"(\", near: \"(((\"",
                  60) == 0);
    value_clear(&n);
    value_clear(&v);
    /* within the limit, deep nesting parses (and is linear: operands are memoized) */
    memset(text, 0, sizeof text);
    for (size_t i = 0; i < 250; i++)
        strcat(text, "NOT "); /* 251 operators */
    strcat(text, "a = :v");
    e = parse_lit(C, "ConditionExpression", text, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e != NULL);
    expr_free(e);
    value_clear(&n);
    value_clear(&v);
    memset(text, 0, sizeof text);
    memset(text, '(', 900);
    strcat(text, "a = :v");
    memset(text + strlen(text), ')', 900);
    e = parse_lit(C, "ConditionExpression", text, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e == NULL);
    CHECK_STR_EQ(msg, "Invalid ConditionExpression: The expression has redundant parentheses;");
    value_clear(&n);
    value_clear(&v);
}

/* ---- semantic errors, in DynamoDB's order ---- */

static void test_function_names_and_where_functions_may_appear(void)
{
    static const struct parse_case cases[] = {
        /* dynalite test/scan.js "invalid function names" */
        {C, "a=a and whatever((:things)) > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Invalid function name; function: whatever"},
        {C, "attRIbute_exIsts((views), #a)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Invalid function name; function: attRIbute_exIsts"},
        /* scylla: function names are case-sensitive */
        {U, "SET a = LIST_APPEND(:v, :v)", NULL, "{\":v\": [1]}", NULL,
         "Invalid UpdateExpression: Invalid function name; function: LIST_APPEND"},
        {U, "SET a = f123_hi(b,c,d)", NULL, NULL, NULL,
         "Invalid UpdateExpression: Invalid function name; function: f123_hi"},
        /* dynalite test/scan.js "functions used incorrectly" */
        {C, "a=a and attribute_exists((views), (#a)) > b", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: attribute_exists"},
        {C, "contains(:things, c) > b", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: contains"},
        {C, "size(contains(a, b)) > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: contains"},
        {C, "size(things)", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: size"},
        {C, "a between b and attribute_exists(things)", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: attribute_exists"},
        {C, "a in (b, attribute_exists(things))", NULL, NULL, NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: attribute_exists"},
        {C, "begins_with(a, :v) = :t", NULL, "{\":v\": \"x\", \":t\": true}", NULL,
         "Invalid ConditionExpression: The function is not allowed to be used this way in an "
         "expression; function: begins_with"},
        /* update functions in a condition and vice versa (real AWS via public tests) */
        {C, "if_not_exists(s, :f) = :f", NULL, "{\":f\": \"x\"}", NULL,
         "Invalid ConditionExpression: The function is not allowed in a condition expression; "
         "function: if_not_exists"},
        {U, "SET r = contains(s, :n)", NULL, "{\":n\": \"e\"}", NULL,
         "Invalid UpdateExpression: The function is not allowed in an update expression; "
         "function: contains"},
        {U, "SET r = size(s)", NULL, NULL, NULL,
         "Invalid UpdateExpression: The function is not allowed in an update expression; "
         "function: size"},
        /* only if_not_exists nests in an update (scylla test_update_expression_function_nesting) */
        {U, "SET a = list_append(list_append(:v, :v), :v)", NULL, "{\":v\": [1]}", NULL,
         "Invalid UpdateExpression: The function is not allowed to be used this way in an "
         "expression; function: list_append"},
        {U, "SET a = list_append(:v, :v) + :v", NULL, "{\":v\": [1]}", NULL,
         "Invalid UpdateExpression: The function is not allowed to be used this way in an "
         "expression; function: list_append"},
    };
    RUN_TABLE(cases);
}

static void test_reserved_words_and_list_indexes(void)
{
    static const struct parse_case cases[] = {
        /* dynalite test/scan.js and test/updateItem.js "reserved keywords" */
        {C, "attribute_exists(views, #a)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "views"},
        {C, ":a < abOrT", NULL, NULL, NULL,
         "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "abOrT"},
        {U, " set #c = :c set abOrt = true ", "{\"#a\": \"a\"}", "{\":a\": \"a\"}", NULL,
         "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: abOrt"},
        {U, " remove Absolute ", NULL, NULL, NULL,
         "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: "
         "Absolute"},
        /* also nested, also in projections (public tests against AWS) */
        {C, "m.COMMENT = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "COMMENT"},
        {P, "list[0].COMMENT", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "list"},
        {P, "#l[0].COMMENT", "{\"#l\": \"list\"}", NULL, NULL,
         "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "COMMENT"},
        {U, "SET status = :s", NULL, "{\":s\": \"x\"}", NULL,
         "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: "
         "status"},
        /* a function name is not checked; its arguments are */
        {C, "size(a) > :v AND contains(zone, :v)", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: "
         "zone"},
        /* indexes are Java ints (DynamoDB Local: Integer.valueOf) */
        {C, "a[2147483647] = :v", NULL, "{\":v\": 1}", "(a[2147483647] = :v)", NULL},
        {C, "a[2147483648] = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid ConditionExpression: List index is not within the allowable range; index: "
         "[2147483648]"},
    };
    RUN_TABLE(cases);
}

static void test_names_and_values_must_be_defined_and_used(void)
{
    static const struct parse_case cases[] = {
        /* dynalite test/scan.js "missing attribute names/values" */
        {C, "attribute_exists(#Pictures.RearView, :a) and a=a", NULL, NULL, NULL,
         "Invalid ConditionExpression: An expression attribute name used in the document path is "
         "not defined; attribute name: #Pictures"},
        {C, "(#P between :lo and :hi) and (#PC in (:cat1, :cat2))", NULL, NULL, NULL,
         "Invalid ConditionExpression: An expression attribute name used in the document path is "
         "not defined; attribute name: #P"},
        {C, "(a)between(b.c[45].#d)and(:a)", NULL, NULL, NULL,
         "Invalid ConditionExpression: An expression attribute name used in the document path is "
         "not defined; attribute name: #d"},
        {C, "begins_with(:hello, #a, #b)", NULL, NULL, NULL,
         "Invalid ConditionExpression: An expression attribute value used in expression is not "
         "defined; attribute value: :hello"},
        {C, ":_ > a", NULL, NULL, NULL,
         "Invalid ConditionExpression: An expression attribute value used in expression is not "
         "defined; attribute value: :_"},
        /* unused ones, after the expression (dynalite test/updateItem.js) */
        {U, "SET #a = :v", "{\"#a\": \"a\", \"#b\": \"b\"}", "{\":v\": 1}", NULL,
         "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}"},
        {U, "SET a = :v", NULL, "{\":v\": 1, \":w\": 2, \":x\": 3}", NULL,
         "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w, :x}"},
        {U, "SET a = :v", "{\"#n\": \"x\"}", "{\":v\": 1, \":w\": 2}", NULL,
         "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}"},
        /* names used on either side count (scylla test_update_expression_set_copy) */
        {U, "SET #one = #two", "{\"#one\": \"c\", \"#two\": \"a\"}", NULL, "SET #one = #two", NULL},
        /* update: targets are resolved last action first (DynamoDB collects them from a stack) */
        {U, "SET #a = :v, #b = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: An expression attribute name used in the document path is not "
         "defined; attribute name: #b"},
        /* ...and all targets before any value */
        {U, "SET a = :nope, #b = :v", NULL, "{\":v\": 1}", NULL,
         "Invalid UpdateExpression: An expression attribute name used in the document path is not "
         "defined; attribute name: #b"},
        {U, "SET #c = if_not_exists(:c)", "{\"#a\": \"a\"}", NULL, NULL,
         "Invalid UpdateExpression: An expression attribute name used in the document path is not "
         "defined; attribute name: #c"},
        {U, "SET #a = if_not_exists(:c)", "{\"#a\": \"a\"}", NULL, NULL,
         "Invalid UpdateExpression: An expression attribute value used in expression is not "
         "defined; attribute value: :c"},
        {P, "#a, #b", NULL, NULL, NULL,
         "Invalid ProjectionExpression: An expression attribute name used in the document path is "
         "not defined; attribute name: #b"},
    };
    RUN_TABLE(cases);
}

static void test_operator_checks(void)
{
    static const struct parse_case cases[] = {
        /* dynalite test/scan.js "functions with incorrect operands" */
        {C, "attribute_exists(things, a) and a=a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
         "operator or function: attribute_exists, number of operands: 2"},
        {C, "attribute_type(things)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
         "operator or function: attribute_type, number of operands: 1"},
        {C, "begins_with(things, size(a), b)", NULL, NULL, NULL,
         "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
         "operator or function: begins_with, number of operands: 3"},
        {C, "size(things, a) > b", NULL, NULL, NULL,
         "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
         "operator or function: size, number of operands: 2"},
        {U, "set a = list_append(c)", NULL, NULL, NULL,
         "Invalid UpdateExpression: Incorrect number of operands for operator or function; "
         "operator or function: list_append, number of operands: 1"},
        /* "functions with incorrect operand type" */
        {C, "attribute_type(a, :a)", NULL, "{\":a\": 1}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: attribute_type, operand type: N"},
        {C, "attribute_type(a, size(a)) and a=a", NULL, NULL, NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: attribute_type, operand type: N"},
        {C, "begins_with(a, :a)", NULL, "{\":a\": <<\"1\">>}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: begins_with, operand type: SS"},
        {C, "begins_with(:a, a)", NULL, "{\":a\": {}}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: begins_with, operand type: M"},
        {C, "size(:a) > a", NULL, "{\":a\": true}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: size, operand type: BOOL"},
        {C, "attribute_not_exists(size(:a))", NULL, "{\":a\": 1}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: size, operand type: N"},
        /* a path can be any type: AWS prints its internal type list (real response) */
        {C, "attribute_type(#n, S)", "{\"#n\": \"name\"}", NULL, NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: attribute_type, operand type: "
         "{S,SS,N,NS,B,BS,BOOL,NULL,L,M,HD,DOUBLE,FLOAT,HDS,FS,DOUBLESET,DICT,DECIMAL,INT,"
         "DECIMALSET,INTSET}"},
        {C, "attribute_type(#n, :t)", "{\"#n\": \"name\"}", "{\":t\": \"STRING\"}", NULL,
         "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid "
         "types: {S,SS,N,NS,B,BS,BOOL,NULL,L,M}"},
        /* ordering comparisons refuse constants that cannot be ordered (scylla
           test_update_condition_lt) */
        {C, "a < :l", NULL, "{\":l\": [1]}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: <, operand type: L"},
        {C, "a BETWEEN :l AND :h", NULL, "{\":l\": true, \":h\": true}", NULL,
         "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
         "or function: BETWEEN, operand type: BOOL"},
        /* dynalite test/updateItem.js "incorrect types to functions" */
        {U, "set a = list_append(:a, a)", NULL, "{\":a\": \"a\"}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
         "function: list_append, operand type: S"},
        {U, "set a = a + :j", NULL, "{\":j\": []}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
         "function: +, operand type: L"},
        {U, "set a = :c - a", NULL, "{\":c\": b\"a\"}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
         "function: -, operand type: B"},
        /* "operand path type" */
        {C, "attribute_exists(:a) and a=a", NULL, "{\":a\": \"1\"}", NULL,
         "Invalid ConditionExpression: Operator or function requires a document path; operator "
         "or function: attribute_exists"},
        {C, "attribute_not_exists(size(:a))", NULL, "{\":a\": \"1\"}", NULL,
         "Invalid ConditionExpression: Operator or function requires a document path; operator "
         "or function: attribute_not_exists"},
        {U, "set a = if_not_exists(:a, c)", NULL, "{\":a\": \"a\"}", NULL,
         "Invalid UpdateExpression: Operator or function requires a document path; operator or "
         "function: if_not_exists"},
        {U, "set a = if_not_exists(if_not_exists(a, b), c)", NULL, NULL, NULL,
         "Invalid UpdateExpression: Operator or function requires a document path; operator or "
         "function: if_not_exists"},
        /* "non-distinct expressions" */
        {C, "a = a AND #a = b AND :views > a", "{\"#a\": \"a\"}", NULL, NULL,
         "Invalid ConditionExpression: The first operand must be distinct from the remaining "
         "operands for this operator or function; operator: =, first operand: [a]"},
        {C, "contains(ab.bc[1].a, ab.bc[1].#a)", "{\"#a\": \"a\"}", NULL, NULL,
         "Invalid ConditionExpression: The first operand must be distinct from the remaining "
         "operands for this operator or function; operator: contains, first operand: [ab, bc, "
         "[1], a]"},
        {C, ":v = :v", NULL, "{\":v\": 1}", "(:v = :v)", NULL},
        /* BETWEEN bounds (dynalite test/query.js; a public test pinned {B:eg==}) */
        {C, "a BETWEEN :x AND :y", NULL, "{\":x\": 5, \":y\": 4}", NULL,
         "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater "
         "than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound "
         "operand: AttributeValue: {N:4}"},
        {C, "a BETWEEN :x AND :y", NULL, "{\":x\": b\"z\", \":y\": b\"a\"}", NULL,
         "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater "
         "than or equal to lower bound; lower bound operand: AttributeValue: {B:eg==}, upper "
         "bound operand: AttributeValue: {B:YQ==}"},
        {C, "a BETWEEN :x AND :y", NULL, "{\":x\": 1, \":y\": \"a\"}", NULL,
         "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower "
         "and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: "
         "AttributeValue: {S:a}"},
        {C, "a BETWEEN :x AND :x", NULL, "{\":x\": 5}", "(a BETWEEN :x AND :x)", NULL},
    };
    RUN_TABLE(cases);
}

static char in_text[8192], in_values[8192];

static void test_in_takes_at_most_100_operands_and_300_operators_in_all(void)
{
    struct value n, v;
    char msg[4096];
    struct expr *e;

    strcpy(in_text, "a IN (");
    strcpy(in_values, "{");
    for (int i = 0; i < 101; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s:v%d", i ? ", " : "", i);
        strcat(in_text, buf);
        snprintf(buf, sizeof buf, "%s\":v%d\": %d", i ? ", " : "", i, i);
        strcat(in_values, buf);
    }
    strcat(in_text, ")");
    strcat(in_values, "}");
    e = parse_lit(C, "ConditionExpression", in_text, NULL, in_values, &n, &v, msg, sizeof msg);
    CHECK(e == NULL);
    CHECK_STR_EQ(msg, "Invalid ConditionExpression: The IN operator is provided with too many "
                      "operands; number of operands: 101");
    value_clear(&n);
    value_clear(&v);
    /* 100 is fine */
    *strrchr(in_text, ',') = '\0';
    strcat(in_text, ")");
    e = parse_lit(C, "ConditionExpression", in_text, NULL, in_values, &n, &v, msg, sizeof msg);
    CHECK(e == NULL); /* :v100 is now unused */
    CHECK_STR_EQ(
        msg, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v100}");
    value_clear(&n);
    value_clear(&v);

    /* 150 comparisons and 149 ANDs are 299 operators; one more comparison and AND make 301 */
    strcpy(in_text, "a = :v");
    for (int i = 1; i < 150; i++)
        strcat(in_text, " AND a = :v");
    e = parse_lit(C, "FilterExpression", in_text, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK(e != NULL);
    expr_free(e);
    value_clear(&n);
    value_clear(&v);
    strcat(in_text, " AND a = :v");
    e = parse_lit(C, "FilterExpression", in_text, NULL, "{\":v\": 1}", &n, &v, msg, sizeof msg);
    CHECK_STR_EQ(msg, "Invalid FilterExpression: The expression contains too many operators; "
                      "operator count: 301");
    value_clear(&n);
    value_clear(&v);
}

static void test_update_sections_and_paths(void)
{
    static const char N[] = "{\"#c\": \"c\", \"#d\": \"[3]\"}";
    static const struct parse_case cases[] = {
        /* dynalite test/updateItem.js "multiple sections" */
        {U, "set a = b set c = :d", NULL, "{\":d\": 1}", NULL,
         "Invalid UpdateExpression: The \"SET\" section can only be used once in an update "
         "expression;"},
        {U, "remove d set a = b remove e", NULL, NULL, NULL,
         "Invalid UpdateExpression: The \"REMOVE\" section can only be used once in an update "
         "expression;"},
        {U, "add d :e set a = b add e :e", NULL, "{\":e\": 1}", NULL,
         "Invalid UpdateExpression: The \"ADD\" section can only be used once in an update "
         "expression;"},
        {U, "delete d :e set a = b delete e :e", NULL, "{\":e\": <<1>>}", NULL,
         "Invalid UpdateExpression: The \"DELETE\" section can only be used once in an update "
         "expression;"},
        /* a function name error in an earlier section comes first */
        {U, "set #c = if_not_exist(:c) set c = d", NULL, NULL, NULL,
         "Invalid UpdateExpression: Invalid function name; function: if_not_exist"},
        /* "overlapping paths" (path one is the earlier one in the text) */
        {U, "set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [c, [1], a], path two: [c]"},
        {U, "set c.b.#c = a, c = a, #d = a", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [c, b, c], path two: [c]"},
        {U, "set a = b remove a, #c, #d", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [a], path two: [a]"},
        {U, "set #c[3].#d = a, #c[3] = a", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"},
        {U, "remove c, #c.a, #d", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [c], path two: [c, a]"},
        {U, "SET mapx = :m, mapx.num = :n", NULL, "{\":m\": {}, \":n\": 2}", NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [mapx], path two: [mapx, num]"},
        /* "conflicting paths" */
        {U, "set #c[3].#d = a, #c.#d[3] = if_not_exists(a)", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
         "rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3], [3]]"},
        {U, "remove a.#c set a[1] = #d", N, NULL, NULL,
         "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
         "rewrite one of these paths; path one: [a, c], path two: [a, [1]]"},
        /* overlap is checked before operand types (dynalite order) */
        {U, "SET a = :s + :s, a = :s", NULL, "{\":s\": \"x\"}", NULL,
         "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
         "rewrite one of these paths; path one: [a], path two: [a]"},
        /* ADD/DELETE operands; the last action is checked first */
        {U, "set b = list_append(:a, a), c = if_not_exists(a) add a.b :a", NULL, "{\":a\": \"a\"}",
         NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
        {U, "ADD numx :list", NULL, "{\":list\": [1]}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
        {U, "ADD m :m", NULL, "{\":m\": {}}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "ADD, operand type: MAP, typeSet: ALLOWED_FOR_ADD_OPERAND"},
        {U, "DELETE setx :s", NULL, "{\":s\": \"a\"}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
        {U, "DELETE setx :n", NULL, "{\":n\": 1}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
        {U, "DELETE setx :n", NULL, "{\":n\": null}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "DELETE, operand type: NULL, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
        {U, "ADD x :b", NULL, "{\":b\": true}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND"},
        {U, "ADD x :b", NULL, "{\":b\": b\"x\"}", NULL,
         "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
         "ADD, operand type: BINARY, typeSet: ALLOWED_FOR_ADD_OPERAND"},
        /* path depth: 32 elements are fine, 33 are not */
        {P, "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff", NULL, NULL,
         "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff", NULL},
        {P, "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff[0]", NULL, NULL,
         NULL,
         "Invalid ProjectionExpression: The document path has too many nesting levels; nesting "
         "levels: 33"},
        /* projections overlap and conflict like updates */
        {P, "a, a.b", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Two document paths overlap with each other; must remove "
         "or rewrite one of these paths; path one: [a], path two: [a, b]"},
        {P, "a.b, a[0]", NULL, NULL, NULL,
         "Invalid ProjectionExpression: Two document paths conflict with each other; must remove "
         "or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"},
        {P, "#a, a", "{\"#a\": \"a\"}", NULL, NULL,
         "Invalid ProjectionExpression: Two document paths overlap with each other; must remove "
         "or rewrite one of these paths; path one: [a], path two: [a]"},
    };
    RUN_TABLE(cases);
}

/* dynalite test/query.js; scylla test_key_condition_expression.py */
static void test_key_condition_structure(void)
{
    static const char V[] = "{\":a\": \"1\", \":b\": \"1\"}";
    static const struct parse_case cases[] = {
        {K, "a > b and size(b) > c or a > c", NULL, NULL, NULL,
         "Invalid operator used in KeyConditionExpression: OR"},
        {K, "a in (b, size(c), d)", NULL, NULL, NULL,
         "Invalid operator used in KeyConditionExpression: IN"},
        {K, "attribute_exists(a)", NULL, NULL, NULL,
         "Invalid operator used in KeyConditionExpression: attribute_exists"},
        {K, "contains(a.d, b)", NULL, NULL, NULL,
         "Invalid operator used in KeyConditionExpression: contains"},
        {K, "not a > b", NULL, NULL, NULL, "Invalid operator used in KeyConditionExpression: NOT"},
        {K, "a <> b", NULL, NULL, NULL, "Invalid operator used in KeyConditionExpression: <>"},
        {K, "attribute_type(a, :a)", NULL, "{\":a\": \"S\"}", NULL,
         "Invalid operator used in KeyConditionExpression: attribute_type"},
        {K, "attribute_type(a, b)", NULL, NULL, NULL,
         "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
         "operator or function: attribute_type, operand type: "
         "{S,SS,N,NS,B,BS,BOOL,NULL,L,M,HD,DOUBLE,FLOAT,HDS,FS,DOUBLESET,DICT,DECIMAL,INT,"
         "DECIMALSET,INTSET}"},
        {K, ":a between size(b) and size(a) and b > :b", NULL, V, NULL,
         "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key "
         "attribute as its first operand"},
        {K, "begins_with(:a, b) and a > :b", NULL, V, NULL,
         "Invalid condition in KeyConditionExpression: begins_with operator must have the key "
         "attribute as its first operand"},
        {K, "size(b) > a AND a.b > b AND b > c", NULL, NULL, NULL,
         "KeyConditionExpressions cannot contain nested operations"},
        {K, "a > size(b.d)", NULL, NULL, NULL,
         "KeyConditionExpressions cannot contain nested operations"},
        {K, "b > a.b", NULL, NULL, NULL,
         "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
         "condition"},
        {K, "begins_with(a, b)", NULL, NULL, NULL,
         "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
         "condition"},
        {K, "a.d > c", NULL, NULL, NULL,
         "KeyConditionExpressions cannot have conditions on nested attributes"},
        {K, "b[0] > a", NULL, NULL, NULL,
         "KeyConditionExpressions cannot have conditions on nested attributes"},
        {K, ":b > :a AND a < :b", NULL, "{\":a\": 1, \":b\": 1}", NULL,
         "Invalid condition in KeyConditionExpression: No key attribute specified"},
        {K, "b > :a AND b < :a and c = :a and d = :a", NULL, "{\":a\": 1}", NULL,
         "KeyConditionExpressions must only contain one condition per key"},
        {K, "p=:p AND p=:p", NULL, "{\":p\": 1}", NULL,
         "KeyConditionExpressions must only contain one condition per key"},
        {K, "a between :b and :a", NULL, "{\":a\": \"a\", \":b\": 1}", NULL,
         "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for "
         "lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound "
         "operand: AttributeValue: {S:a}"},
        {K, "p=:p AND c!=:c", NULL, "{\":p\": 1, \":c\": 1}", NULL,
         "Invalid KeyConditionExpression: Syntax error; token: \"!\", near: \"c!=\""},
        {K, "p=:p AND dog(c, :c)", NULL, "{\":p\": 1, \":c\": 1}", NULL,
         "Invalid KeyConditionExpression: Invalid function name; function: dog"},
        {K, "p=:p AND BEGINS_WITH(c,:c)", NULL, "{\":p\": 1, \":c\": \"0\"}", NULL,
         "Invalid KeyConditionExpression: Invalid function name; function: BEGINS_WITH"},
        {K, "p=:p AND begins_with(c, :c)", NULL, "{\":p\": 1, \":c\": 3}", NULL,
         "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
         "operator or function: begins_with, operand type: N"},
    };
    RUN_TABLE(cases);
}

static void test_reserved_word_list_is_awss(void)
{
    CHECK_INT_EQ(expr_reserved_word_count(), 573);
    for (size_t i = 1; i < expr_reserved_word_count(); i++)
        CHECK(strcmp(expr_reserved_word(i - 1), expr_reserved_word(i)) < 0);
    CHECK_STR_EQ(expr_reserved_word(0), "ABORT");
    CHECK_STR_EQ(expr_reserved_word(572), "ZONE");
    CHECK(expr_is_reserved_word("abort", 5));
    CHECK(expr_is_reserved_word("Zone", 4));
    CHECK(expr_is_reserved_word("STATUS", 6));
    CHECK(expr_is_reserved_word("size", 4));
    CHECK(!expr_is_reserved_word("sizes", 5));
    CHECK(!expr_is_reserved_word("zon", 3));
    CHECK(!expr_is_reserved_word("", 0));
    CHECK(!expr_is_reserved_word("pk", 2));
}

static void test_lexer_tokens(void)
{
    static const struct {
        const char *text;
        enum expr_tok types[8];
    } cases[] = {
        {"SET settle", {TOK_SET, TOK_ID, TOK_EOF}},
        /* a keyword's prefix or extension is a name */
        {"an ANDY i INTO nots o ORs",
         {TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_ID, TOK_EOF}},
        {"a<>b<=c>=d<e>f=g", {TOK_ID, TOK_NE, TOK_ID, TOK_LE, TOK_ID, TOK_GE, TOK_ID, TOK_LT}},
        {"007", {TOK_INDEX, TOK_INDEX, TOK_INDEX, TOK_EOF}},
        {"#a_1 :2 # :", {TOK_NAME_REF, TOK_VALUE_REF, TOK_UNKNOWN, TOK_UNKNOWN, TOK_EOF}},
        {"'x' \"y", {TOK_STRING, TOK_UNKNOWN, TOK_ID, TOK_EOF}},
        {"in BETWEEN Not and OR add Delete remove",
         {TOK_IN, TOK_BETWEEN, TOK_NOT, TOK_AND, TOK_OR, TOK_ADD, TOK_DELETE, TOK_REMOVE}},
        {"\xc3\xbc\xff", {TOK_UNKNOWN, TOK_UNKNOWN, TOK_EOF}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct expr_tokens t;
        expr_lex(cases[i].text, strlen(cases[i].text), &t);
        for (size_t k = 0; k < 8 && k < t.count; k++) {
            if (k > 0 && cases[i].types[k - 1] == TOK_EOF) break;
            CHECK_INT_EQ(t.toks[k].type, cases[i].types[k]);
        }
        expr_tokens_clear(&t);
    }
}

int main(void)
{
    RUN(test_condition_trees_show_precedence_and_associativity);
    RUN(test_update_and_projection_trees);
    RUN(test_printed_trees_parse_back_to_themselves);
    RUN(test_syntax_errors_quote_the_token_and_its_neighbours);
    RUN(test_every_syntax_error_class);
    RUN(test_redundant_parentheses);
    RUN(test_empty_and_oversized_expressions);
    RUN(test_nesting_beyond_our_limit_is_a_syntax_error);
    RUN(test_function_names_and_where_functions_may_appear);
    RUN(test_reserved_words_and_list_indexes);
    RUN(test_names_and_values_must_be_defined_and_used);
    RUN(test_operator_checks);
    RUN(test_in_takes_at_most_100_operands_and_300_operators_in_all);
    RUN(test_update_sections_and_paths);
    RUN(test_key_condition_structure);
    RUN(test_reserved_word_list_is_awss);
    RUN(test_lexer_tokens);
    return check_report();
}
