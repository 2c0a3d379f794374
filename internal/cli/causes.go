package cli

import (
	"github.com/spf13/cobra"

	"github.com/kubectl-chain/kubectl-chain/decode"
	"github.com/kubectl-chain/kubectl-chain/render"
)

func newCausesCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "causes",
		Short: "List every cause kubectl chain can name, with its link, when it is terminal and the next step",
		Example: `  kubectl chain causes
  kubectl chain causes -o json | jq '.[] | select(.link == "containers") | .id'
  kubectl chain causes -o markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			causes := decode.Catalogue()
			switch o.Output.Format {
			case "json":
				return render.JSON(o.Out, causes)
			case "yaml":
				return render.YAML(o.Out, causes)
			case "markdown":
				return render.CausesMarkdown(o.Out, causes)
			}
			if err := o.Output.complete(o.Out); err != nil {
				return err
			}
			return render.CausesText(o.Out, causes, o.Output.render)
		},
	}
}
